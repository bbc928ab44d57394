"""test_hostile.py — the Python layer under hostile input: free() while
another thread is inside a product, SciPy matrices whose arrays are
corrupt, options the C library refuses, things that are not a sparse
matrix. Each case crashed, went silent or raised the wrong error before."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import hspmv

HERE = os.path.dirname(os.path.abspath(__file__))


def lap2d(n):
    T = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(n, n))
    return sp.kronsum(T, T, format="csr")


def run_python(code, timeout=120):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_free_while_another_thread_multiplies():
    # in a child process: a crash there is a failed test, not a dead pytest
    p = run_python("""
        import threading, time, numpy as np, scipy.sparse as sp, hspmv
        T = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(400, 400))
        A = sp.kronsum(T, T, format="csr")
        x = np.ones(A.shape[1])
        ref = A @ x
        for trial in range(10):
            M = hspmv.Matrix(A, threads=2)
            seen = {"ok": 0, "freed": 0, "wrong": 0}
            started = threading.Event()
            def work():
                for _ in range(400):
                    try:
                        y = M @ x
                    except hspmv.Error as e:
                        assert "freed" in str(e), e
                        seen["freed"] += 1
                        return
                    started.set()
                    seen["ok" if np.array_equal(y, ref) or np.abs(y - ref).max() < 1e-12 else "wrong"] += 1
            ts = [threading.Thread(target=work) for _ in range(3)]
            for t in ts:
                t.start()
            started.wait()
            time.sleep(0.001 * trial)
            M.free()  # while the others are inside M @ x
            for t in ts:
                t.join()
            assert seen["wrong"] == 0 and seen["freed"] == 3, seen
        print("done")
    """)
    assert p.returncode == 0 and "done" in p.stdout, f"rc {p.returncode}\n{p.stdout}\n{p.stderr[-3000:]}"


def corrupt(kind):
    A = lap2d(10)
    if kind == "indptr past nnz":
        A.indptr[5] = 10**6
    elif kind == "indptr decreasing":
        A.indptr[5] = A.indptr[3]
    elif kind == "last indptr past the arrays":
        A.indptr[-1] = A.nnz + 50
    elif kind == "column out of range":
        A.indices[7] = 1000
    elif kind == "negative column":
        A.indices[7] = -3
    elif kind == "indptr too short":
        A.indptr = A.indptr[:-2]
    elif kind == "csc indptr past nnz":
        A = A.tocsc()
        A.indptr[5] = 10**6
    elif kind == "coo row out of range":
        A = A.tocoo()
        A.row[3] = 10**6
    return A


# each corruption and what the refusal must say
KINDS = {"indptr past nnz": r"indptr decreases at row 5: indptr[5] = 1000000",
         "indptr decreasing": "indptr decreases at row 4",
         "last indptr past the arrays": "indptr[100] = 510 entries, but only 460 indices",
         "column out of range": "column index 1000 outside [0, 100)",
         "negative column": "column index -3 outside [0, 100)",
         "indptr too short": "indptr has 99 entries, expected 101",
         "csc indptr past nnz": "csc matrix: indptr decreases at column 5",
         "coo row out of range": "row[3] = 1000000 outside [0, 100)"}


@pytest.mark.parametrize("kind", KINDS)
def test_corrupt_scipy_arrays_refused(kind):
    # in a child process: before the checks, some of these crashed it
    p = run_python(f"""
        import sys
        sys.path.insert(0, {HERE!r})
        import hspmv
        from test_hostile import corrupt
        try:
            hspmv.Matrix(corrupt({kind!r}))
        except ValueError as e:
            print("refused:", e)
    """)
    assert p.returncode == 0 and "refused:" in p.stdout, f"rc {p.returncode}\n{p.stdout}\n{p.stderr[-2000:]}"
    msg = p.stdout.split("refused:", 1)[1]
    assert KINDS[kind] in msg, msg


def test_spare_room_past_the_entries_is_fine():
    # SciPy allows indices/data longer than indptr[-1]: only the entries count
    A = lap2d(6)
    B = sp.csr_matrix((np.r_[A.data, 9, 9], np.r_[A.indices, 0, 0], A.indptr), shape=A.shape)
    x = np.arange(A.shape[1], dtype=float)
    assert np.allclose(hspmv.Matrix(B) @ x, A @ x)


@pytest.mark.parametrize("value", [-1, -0.5, float("nan"), float("inf")])
def test_csrl_threshold_refused_as_the_library_refuses_it(value):
    with pytest.raises(ValueError, match="not a finite number >= 0"):
        hspmv.Matrix(lap2d(5), csrl_threshold=value)


def test_csrl_threshold_reaches_the_library():
    A = lap2d(20)  # a stencil: few segments per entry, so threshold 10 picks CSRL, 0 never
    assert hspmv.Matrix(A, csrl_threshold=10).info["format"] == "csrl"
    assert hspmv.Matrix(A, csrl_threshold=0).info["format"] != "csrl"
    with pytest.raises(TypeError):
        hspmv.Matrix(A, csrl_threshold="x")


def test_threads_checked_as_the_library_does():
    A = lap2d(5)
    # 0 is the library's default (hspmv_opts.threads = 0: OMP_NUM_THREADS or all), like None
    assert hspmv.Matrix(A, threads=0).info["threads"] == hspmv.Matrix(A).info["threads"]
    with pytest.raises(ValueError, match="threads must be None, 0"):
        hspmv.Matrix(A, threads=-1)
    with pytest.raises(ValueError, match=r"threads=1099511627776: more than"):
        hspmv.Matrix(A, threads=2**40)
    with pytest.raises(TypeError, match="threads must be None or an integer"):
        hspmv.Matrix(A, threads=1.5)
    with pytest.raises(TypeError):
        hspmv.Matrix(A, threads=True)
    with pytest.raises(ValueError, match="read_threads"):
        hspmv.Matrix.read(os.path.join(os.path.dirname(os.path.dirname(HERE)), "matrices", "lap3d_12.mtx"),
                          read_threads=2**40)


@pytest.mark.parametrize("bad", [[[1, 2], [3, 4]], None, np.eye(3), "m.mtx", 3.0])
def test_not_a_sparse_matrix_is_a_type_error_naming_what_is_accepted(bad):
    with pytest.raises(TypeError, match="takes a scipy.sparse matrix or array") as e:
        hspmv.Matrix(bad)
    assert type(bad).__name__ in str(e.value) and "csr_matrix" in str(e.value)
