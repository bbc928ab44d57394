#!/usr/bin/env python3
# lsqr_scipy.py — ./solve --method lsqr (and cgls) against SciPy's
# scipy.sparse.linalg.lsqr on a random 300 x 120 least squares problem:
# the same stopping rule (atol = btol = tol, no condition limit), iteration
# counts within 2 or 10%, the same reason (SciPy's istop 1: CONVERGED_RTOL,
# 2: CONVERGED_RTOL_NORMAL), and ||A x - b|| of the x solve wrote (--out)
# equal to SciPy's to 1e-6 relative (1e-3 in single precision), at 1 and 3
# ranks; CGLS's residual against the same; a consistent b = A*1 (no --rhs)
# solved to the stopping test's level. Prints "ok NAME" / "FAIL NAME" / "skip NAME" lines
# and "N passed, N failed, N skipped"; exits 0 unless something failed.
#   lsqr_scipy.py SOLVE TMPDIR "MPIRUN ..." [single]
import os
import re
import subprocess
import sys

solve, tmp, mpirun = sys.argv[1], sys.argv[2], sys.argv[3].split()
single = len(sys.argv) > 4 and sys.argv[4] == "single"
P = F = S = 0


def result(ok, name, detail=""):
    global P, F
    if ok:
        P += 1
        print("ok   " + name)
    else:
        F += 1
        print("FAIL " + name + (": " + detail if detail else ""))


def done():
    print("%d passed, %d failed, %d skipped" % (P, F, S))
    sys.exit(1 if F else 0)


try:
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.linalg import lsqr
except ImportError as e:
    S += 1
    print("skip lsqr_against_scipy (no numpy/scipy for %s: %s; Debian: python3-numpy python3-scipy)"
          % (sys.executable, e))
    done()

# A: 300 x 120, 1 + u on the diagonal and 6 random entries a row: full
# column rank, well conditioned. b leaves range(A).
m, n = 300, 120
rng = np.random.default_rng(20261127)
rows, cols, vals = [], [], []
for i in range(m):
    c = set([i]) if i < n else set()
    while len(c) < 7:
        c.add(int(rng.integers(n)))
    for j in sorted(c):
        rows.append(i)
        cols.append(j)
        vals.append(1 + rng.random() if j == i else 2 * rng.random() - 1)
A = sp.csr_matrix((vals, (rows, cols)), shape=(m, n))
b = A @ np.ones(n) + 0.5 * np.sin(1.0 + np.arange(m))
amtx, bmtx, xmtx = (os.path.join(tmp, f) for f in ("lsq_A.mtx", "lsq_b.mtx", "lsq_x.mtx"))
with open(amtx, "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (m, n, A.nnz))
    Ac = A.tocoo()
    for i, j, v in zip(Ac.row, Ac.col, Ac.data):
        f.write("%d %d %r\n" % (i + 1, j + 1, float(v)))
with open(bmtx, "w") as f:
    f.write("%%%%MatrixMarket matrix array real general\n%d 1\n" % m)
    f.writelines("%r\n" % float(v) for v in b)

tol = 1e-5 if single else 1e-8
rrel = 1e-3 if single else 1e-6
reason_of = {1: "CONVERGED_RTOL", 2: "CONVERGED_RTOL_NORMAL"}


def read_x(path):
    """x from solve's --out file: the array header, 'n 1', n values."""
    with open(path) as f:
        lines = [l for l in f.read().split("\n") if l.strip()]
    if not lines[0].startswith("%%MatrixMarket matrix array real general") or lines[1].split() != [str(n), "1"]:
        raise ValueError("%s: not an n x 1 Matrix Market array (%r, %r)" % (path, lines[0], lines[1]))
    return np.array([float(v) for v in lines[2:]])


def run(method, ranks, rhs):
    if os.path.exists(xmtx):
        os.remove(xmtx)
    cmd = mpirun + ["-n", str(ranks), solve, amtx, "--method", method, "--tol", repr(tol), "--maxit", "1000",
                    "--out", xmtx] + (["--rhs", bmtx] if rhs else [])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    line = [l for l in p.stdout.split("\n") if l.startswith("bench=solve ")]
    if p.returncode != 0 or not line:
        return None, p.stdout
    kv = dict(re.findall(r"(\w+)=(\S+)", line[0]))
    return (kv, read_x(xmtx)), p.stdout


# (method, ranks, inconsistent b): LSQR at 1 and 3 ranks, CGLS, and LSQR on b = A*1
cases = [("lsqr", 1, True), ("lsqr", 3, True), ("cgls", 2, True), ("lsqr", 2, False)]
ref = {}
for method, ranks, rhs in cases:
    bb = b if rhs else A @ np.ones(n)
    if rhs not in ref:
        xs, istop, itn = lsqr(A, bb, atol=tol, btol=tol, conlim=0, iter_lim=1000)[:3]
        ref[rhs] = (istop, itn, np.linalg.norm(A @ xs - bb))
    istop, itn, rs = ref[rhs]
    name = "solve_%s_%s_%d_ranks_against_scipy_lsqr" % (method, "inconsistent_b" if rhs else "b_is_A1", ranks)
    got, out = run(method, ranks, rhs)
    if got is None:
        result(False, name, "solve failed:\n" + out[-2000:])
        continue
    kv, x = got
    r = np.linalg.norm(A @ x - bb)
    its = int(kv["iterations"])
    detail = "%d iterations (scipy %d, istop %d), reason %s, ||Ax-b|| %.9e (scipy %.9e), rnorm= %s" % (
        its, itn, istop, kv["reason"], r, rs, kv["rnorm"])
    print("   " + name + ": " + detail)
    ok = kv["status"] == "0"
    if rhs:  # the least squares residual, unique
        ok = ok and abs(r - rs) <= rrel * rs and abs(float(kv["rnorm"]) - r) <= rrel * r
    else:  # consistent: both residuals at the stopping test's level
        ok = ok and r <= 10 * tol * (np.linalg.norm(bb) + sp.linalg.norm(A) * np.linalg.norm(x))
    if method == "lsqr":  # the same algorithm and rule: iterations and reason match
        ok = ok and abs(its - itn) <= max(2, itn // 10) and kv["reason"] == reason_of.get(istop, "?")
    result(ok, name, detail)
done()
