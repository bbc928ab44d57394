"""_error.py — hspmv.Error: a library status code and its message."""

# the library's status codes (include/hspmv.h), by value
CODE_NAMES = ("OK", "ARG", "NOMEM", "IO", "FORMAT", "UNSUPPORTED", "MPI", "CUDA", "NOCONV", "BREAKDOWN")


class Error(Exception):
    """A failed hspmv call: ``code`` is the library's status (``hspmv.ERR_*``),
    ``name`` its name ("FORMAT", ...), ``str(e)`` the library's message naming
    what and where. Collective calls raise the same error on every rank.
    A solver that stops without converging also sets ``x`` (the last iterate)
    and ``result`` (a SolveResult)."""

    def __init__(self, message, code, **extra):
        super().__init__(message)
        self.message = message
        self.code = code
        self.name = CODE_NAMES[code] if 0 <= code < len(CODE_NAMES) else str(code)
        for key, value in extra.items():
            setattr(self, key, value)

    def __reduce__(self):
        return (Error, (self.message, self.code))
