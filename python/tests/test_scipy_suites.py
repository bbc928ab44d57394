"""test_scipy_suites.py — SciPy's own tests of scipy.sparse.linalg's
iterative solvers and LinearOperator (the files as python3-scipy installs
them) run twice in a pytest of their own: as they are, then with their real
sparse matrices replaced by hspmv.Matrix (scipy_adapt.py says where). Every
test SciPy passes must pass with hspmv.Matrix; the complex matrices, which
hspmv refuses with a TypeError naming SciPy, are kept as SciPy's and
recorded here as a skip. Skips where SciPy's tests are not installed."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import scipy

HERE = os.path.dirname(os.path.abspath(__file__))
LINALG = os.path.join(os.path.dirname(scipy.__file__), "sparse", "linalg")
FILES = [os.path.join(LINALG, "_isolve", "tests", f) for f in
         ("test_iterative.py", "test_lgmres.py", "test_gcrotmk.py", "test_lsqr.py", "test_lsmr.py",
          "test_minres.py")] + [os.path.join(LINALG, "tests", "test_interface.py")]
PRESENT = [f for f in FILES if os.path.isfile(f)]
# one test solves 1600-row systems densely at every preconditioner call (a minute
# on 2 cores) through the same code as its 40-row case, which runs
SLOW = "not (test_precond_inverse and case1)"


def run(mode, tmp):
    xml, report = os.path.join(tmp, f"{mode}.xml"), os.path.join(tmp, f"{mode}.json")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",  # nothing written into SciPy's folder
               PYTHONPATH=os.pathsep.join([HERE, os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "scipy_adapt", "--hspmv-adapt",
           mode, "--hspmv-report", report, "--junitxml", xml, "-k", SLOW, *PRESENT]
    p = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=280)
    if not os.path.exists(xml):
        pytest.fail(f"SciPy's tests ({mode}) gave no results, rc {p.returncode}:\n{p.stdout[-3000:]}{p.stderr[-2000:]}")
    outcomes = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        kinds = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
        outcomes[(case.get("classname"), case.get("name"))] = kinds[0] if kinds else "passed"
    with open(report) as f:
        return outcomes, json.load(f), p.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not PRESENT:
        pytest.skip(f"SciPy's tests are not installed under {LINALG} (python3-scipy ships them in */tests)")
    tmp = str(tmp_path_factory.mktemp("scipy-suites"))
    return run("none", tmp), run("matrix", tmp)


def test_every_test_scipy_passes_passes_with_hspmv_matrix(runs):
    (base, _, _), (adapted, rep, out) = runs
    assert sum(v == "passed" for v in base.values()) >= 50, "SciPy's own run passed too few to mean anything"
    lost = sorted(f"{c}::{n} ({adapted.get((c, n), 'missing')})" for (c, n), v in base.items()
                  if v == "passed" and adapted.get((c, n)) != "passed")
    assert not lost, "passed with SciPy's matrices, not with hspmv.Matrix:\n" + "\n".join(lost) + "\n" + out[-4000:]


def test_the_matrices_were_replaced(runs):
    _, (_, rep, _) = runs
    assert not rep["failed"], rep["failed"]
    # module level (test_iterative's cases, lgmres/gcrotmk's Am), per instance
    # (TestAsLinearOperator), at the solvers (TestQMR, TestGMRES, lsqr, lgmres)
    where = " ".join(rep["converted"])
    assert len(rep["converted"]) >= 20, rep["converted"]
    for part in ("params.cases[0].A", "Am", "TestAsLinearOperator", "qmr(A)", "lsqr(A)"):
        assert part in where, f"nothing replaced at {part}"
    assert any("float32 -> float32" in d for d in rep["converted"].values())


def test_complex_matrices_are_kept_as_scipys(runs):
    _, (_, rep, _) = runs
    assert rep["complex"], "SciPy's tests hold complex matrices: each should have been tried"
    for where, msg in rep["complex"].items():
        assert "real matrices only" in msg and "SciPy" in msg, (where, msg)
    pytest.skip(f"{len(rep['complex'])} complex matrices of SciPy's tests kept as SciPy's: hspmv holds real "
                f"matrices only (TypeError naming SciPy), e.g. {next(iter(rep['complex']))}")
