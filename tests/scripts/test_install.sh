#!/bin/sh
# test_install.sh — make install of both precisions into one temporary prefix
# and make uninstall: the installed names (hspmv-* programs, *-single, no
# bare convert/genmat/solve), each shared library's soname, links, exported
# symbols and a ctypes load calling hspmv_version(), a probe and
# examples/minimal built against each precision with pkg-config and with
# CMake find_package (shared and static), every program's --version and
# --help under its installed name, then uninstall of one precision keeping the other intact and of
# the other leaving nothing behind. Ends with "N passed, N failed, N skipped".
#   sh tests/scripts/test_install.sh     (HSPMV_MAKE: the make to use)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MAKE=${HSPMV_MAKE:-make}
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | tail -20; }
skip() { S=$((S + 1)); echo "skip $1"; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
pre=$t/prefix
finish() { echo "$P passed, $F failed, $S skipped"; [ "$F" = 0 ]; exit $?; }

export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# the version, from the header's macros (as the Makefile takes it)
ver=$(awk '/^#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $3; s = "."} END {print v}' "$root/include/hspmv.h")
sover=$(echo "$ver" | awk -F. '{print ($1 == 0 ? $1 "." $2 : $1)}')
case $ver in [0-9]*.[0-9]*.[0-9]*) ok "version $ver read from include/hspmv.h" ;;
*) bad "version from include/hspmv.h (got '$ver')"; finish ;; esac

# name PRECISION: the library / package name; sfx PRECISION: the programs' suffix
name() { if [ "$1" = single ]; then echo hspmv_single; else echo hspmv; fi; }
sfx() { if [ "$1" = single ]; then echo -single; fi; }
progs="benchmark-naive benchmark-omp benchmark-mpi hspmv-convert hspmv-genmat hspmv-solve"
files() { (cd "$pre" && find . \( -type f -o -type l \) | sort); }

# 1. install double, then single beside it: the second touches none of the
#    first's files (same bytes; share/hspmv is common and identical). The
#    prefix holds one empty folder of the user's (lib/user) before: uninstall
#    must keep it, and remove every folder install made.
mkdir -p "$pre/lib/user"
for prec in double single; do
    if (cd "$root" && $MAKE --no-print-directory -s install PRECISION=$prec PREFIX="$pre") > "$t/out" 2>&1; then
        ok "make install PRECISION=$prec into an empty prefix"
    else bad "make install PRECISION=$prec PREFIX=$pre"; finish; fi
    files > "$t/files-$prec"
    (cd "$pre" && find . -type f -exec sha256sum {} + | sort -k2) > "$t/sums-$prec"
done
comm -23 "$t/files-single" "$t/files-double" > "$t/files-single-only"
if (cd "$pre" && sha256sum -c --quiet "$t/sums-double") > "$t/out" 2>&1 && [ -s "$t/files-single-only" ] &&
   [ "$(comm -23 "$t/files-double" "$t/files-single" | wc -l)" = 0 ]; then
    ok "installing single beside double leaves double's $(wc -l < "$t/files-double") files as they were"
else bad "installing single beside double leaves double's files as they were"; fi

# 2. the names: exactly these programs, no bare convert/genmat/solve
want=$(for p in $progs; do echo "$p"; echo "$p-single"; done | sort)
have=$(ls "$pre/bin" | sort)
if [ "$want" = "$have" ]; then ok "bin holds benchmark-* and hspmv-{convert,genmat,solve}, each also as *-single"
else echo "$have" > "$t/out"; bad "bin holds exactly the expected programs (listed above)"; fi
bare=""
for p in convert genmat solve convert-single genmat-single solve-single; do [ -e "$pre/bin/$p" ] && bare="$bare $p"; done
if [ -z "$bare" ]; then ok "no bare convert, genmat or solve in bin"; else : > "$t/out"; bad "bare names in bin:$bare"; fi
miss=""
for f in include/hspmv.h include/hspmv_config.h include/hspmv_single/hspmv.h include/hspmv_single/hspmv_config.h \
         lib/pkgconfig/hspmv.pc lib/pkgconfig/hspmv_single.pc lib/cmake/hspmv/hspmv-config.cmake \
         lib/cmake/hspmv_single/hspmv_single-config.cmake lib/libhspmv.a lib/libhspmv_single.a \
         share/hspmv/examples/petsc/hspmv_petsc.c share/hspmv/examples/petsc/hspmv_petsc.h \
         share/hspmv/examples/petsc/petsc_shell.c share/hspmv/examples/petsc/CMakeLists.txt \
         share/hspmv/examples/minimal/minimal.c share/hspmv/run_all-mpi.sh; do
    [ -f "$pre/$f" ] || miss="$miss $f"
done
if [ -z "$miss" ]; then ok "headers, .pc files, CMake packages, static libraries and examples (PETSc adaptor too) in place"
else : > "$t/out"; bad "missing:$miss"; fi
if ! grep -q HSPMV_SINGLE "$pre/include/hspmv_config.h" && grep -q '^#define HSPMV_SINGLE' "$pre/include/hspmv_single/hspmv_config.h"; then
    ok "each precision's hspmv_config.h says its precision"
else : > "$t/out"; bad "each precision's hspmv_config.h says its precision"; fi

# 3. the shared libraries: soname, links, exported names, a ctypes load
for prec in double single; do
    n=$(name $prec); so=$pre/lib/lib$n.so
    if [ "$(readlink "$so")" = "lib$n.so.$ver" ] && [ "$(readlink "$pre/lib/lib$n.so.$sover")" = "lib$n.so.$ver" ] &&
       [ -f "$pre/lib/lib$n.so.$ver" ]; then ok "lib$n.so -> lib$n.so.$ver, lib$n.so.$sover -> lib$n.so.$ver"
    else ls -l "$pre/lib" > "$t/out"; bad "lib$n.so links"; fi
    if command -v readelf > /dev/null 2>&1; then
        readelf -d "$so" > "$t/dyn" 2>&1
    elif command -v objdump > /dev/null 2>&1; then objdump -p "$so" > "$t/dyn" 2>&1
    else : > "$t/dyn"; fi
    if [ ! -s "$t/dyn" ]; then skip "soname of lib$n.so (no readelf or objdump)"
    elif grep -E 'SONAME' "$t/dyn" | grep -q "lib$n\.so\.$sover\b" && grep -q 'NEEDED.*libgomp' "$t/dyn"; then
        ok "lib$n.so's soname is lib$n.so.$sover, and it needs libgomp itself"
    else cp "$t/dyn" "$t/out"; bad "lib$n.so's soname is lib$n.so.$sover"; fi
    if command -v nm > /dev/null 2>&1; then
        nm -D --defined-only "$so" | awk '{print $NF}' | grep -v -E '^(\.gomp_critical_user_)?hspmv_' > "$t/out"
        if [ ! -s "$t/out" ] && nm -D --defined-only "$so" | grep -q ' T hspmv_version$'; then
            ok "lib$n.so exports hspmv_ names only ($(nm -D --defined-only "$so" | wc -l) symbols)"
        else bad "lib$n.so exports hspmv_ names only (others above)"; fi
    else skip "exported names of lib$n.so (no nm)"; fi
    if ! command -v python3 > /dev/null 2>&1; then skip "ctypes load of lib$n.so (no python3)"
    elif python3 -c 'import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.hspmv_version.restype = ctypes.c_char_p
print(lib.hspmv_version().decode())' "$so" > "$t/out" 2>&1 && [ "$(cat "$t/out")" = "$ver" ]; then
        ok "python3 ctypes loads lib$n.so alone and hspmv_version() says $ver"
    else bad "python3 ctypes loads lib$n.so and hspmv_version() says $ver"; fi
done

# 4. build against each precision: a probe that the header and the library
#    agree (reads a file whose values show float read as double and back),
#    and examples/minimal as installed, with pkg-config and with CMake
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0.1\n2 2 -2.5e3\n' > "$t/two.mtx"
cat > "$t/probe.c" << 'EOF'
/* probe.c — the precision and version the installed header and library give */
#include <stdio.h>
#include <hspmv.h>
int main(int argc, char **argv)
{
    hspmv_csr A;
    hspmv_error e;
    (void)argc;
    if (hspmv_csr_read(argv[1], &A, NULL, NULL, &e)) { printf("read: %s\n", e.msg); return 1; }
    int same = A.nnz == 2 && A.val[0] == (hspmv_real)0.1 && A.val[1] == (hspmv_real)-2.5e3;
    printf("real=%d version=%s header=%d.%d.%d values=%s\n", (int)sizeof(hspmv_real), hspmv_version(),
           HSPMV_VERSION_MAJOR, HSPMV_VERSION_MINOR, HSPMV_VERSION_PATCH, same ? "ok" : "WRONG");
    hspmv_csr_free(&A);
    return !same;
}
EOF
export PKG_CONFIG_PATH="$pre/lib/pkgconfig"
for prec in double single; do
    n=$(name $prec); bytes=8; [ $prec = single ] && bytes=4
    if ! command -v pkg-config > /dev/null 2>&1 || ! command -v mpicc > /dev/null 2>&1; then
        skip "builds against $n (no pkg-config or mpicc)"; continue; fi
    if ! pkg-config --exists "$n"; then : > "$t/out"; bad "pkg-config finds $n"; continue; fi
    flags=$(pkg-config --cflags --libs "$n")
    # shared (the .pc's default): needs the prefix on the loader's path
    if (cd "$t" && mpicc -std=c11 -Wall -Werror probe.c $flags -o probe-$prec) > "$t/out" 2>&1 &&
       readelf -d "$t/probe-$prec" 2> /dev/null | grep -q "NEEDED.*lib$n\.so\.$sover" &&
       LD_LIBRARY_PATH=$pre/lib "$t/probe-$prec" "$t/two.mtx" > "$t/out" 2>&1 &&
       [ "$(cat "$t/out")" = "real=$bytes version=$ver header=$ver values=ok" ]; then
        ok "pkg-config $n: a probe links lib$n.so.$sover and reads $bytes-byte reals, version $ver"
    else bad "pkg-config $n: the probe (flags: $flags)"; fi
    # static, through the .pc's staticlib variable: no lib$n.so needed
    slib=$(pkg-config --variable=staticlib "$n")
    if (cd "$t" && mpicc -std=c11 probe.c $(pkg-config --cflags "$n") "$slib" \
            $(pkg-config --libs-only-l --static "$n" | sed "s/-l$n\b//") -fopenmp -o probe-static-$prec) > "$t/out" 2>&1 &&
       ! readelf -d "$t/probe-static-$prec" 2> /dev/null | grep -q "lib$n\.so" &&
       env -u LD_LIBRARY_PATH "$t/probe-static-$prec" "$t/two.mtx" > "$t/out" 2>&1 && grep -q "real=$bytes .*values=ok" "$t/out"; then
        ok "pkg-config --variable=staticlib $n: the probe links $slib statically and runs"
    else bad "static link of the probe against $slib"; fi
    # the installed examples/minimal at 2 ranks
    mkdir -p "$t/pc-$prec"
    if (cd "$t/pc-$prec" && mpicc -std=c11 "$pre/share/hspmv/examples/minimal/minimal.c" $flags -o minimal) > "$t/out" 2>&1 &&
       LD_LIBRARY_PATH=$pre/lib timeout 60 $MPIRUN -x LD_LIBRARY_PATH -n 2 "$t/pc-$prec/minimal" 64 > "$t/out" 2>&1 &&
       grep -q ': ok$' "$t/out"; then
        ok "pkg-config $n: the installed examples/minimal builds and runs at 2 ranks"
    else bad "pkg-config $n: examples/minimal at 2 ranks"; fi
done
if command -v cmake > /dev/null 2>&1; then
    for cfg in "double OFF" "single OFF" "single ON"; do
        set -- $cfg; prec=$1; st=$2; n=$(name "$prec"); b=$t/cmake-$prec-$st
        what="CMake find_package($n) $([ "$st" = ON ] && echo "${n}::${n}_static" || echo "${n}::$n")"
        if (cmake -S "$pre/share/hspmv/examples/minimal" -B "$b" -DCMAKE_PREFIX_PATH="$pre" \
                -DHSPMV_PACKAGE="$n" -DHSPMV_STATIC=$st && cmake --build "$b") > "$t/out" 2>&1 &&
           env -u LD_LIBRARY_PATH timeout 60 $MPIRUN -n 2 "$b/minimal" 64 > "$t/out" 2>&1 && grep -q ': ok$' "$t/out" &&
           if readelf -d "$b/minimal" | grep -q "NEEDED.*lib$n\.so"; then [ "$st" = OFF ]; else [ "$st" = ON ]; fi; then
            ok "$what: examples/minimal builds, links $([ "$st" = ON ] && echo "lib$n.a" || echo "lib$n.so") and runs at 2 ranks"
        else bad "$what: examples/minimal"; fi
    done
else skip "CMake builds (no cmake)"; fi

# 5. every installed program under its installed name: --version (exit 0,
#    before MPI starts: no mpirun; "NAME hspmv VERSION (PRECISION) commit C"
#    with NAME as installed) and --help (exit 0, a usage naming it as installed)
for prec in double single; do
    for p in $progs; do
        name=$p$(sfx $prec); bin=$pre/bin/$name
        "$bin" --version > "$t/out" 2>&1; rc=$?
        if [ $rc = 0 ] && grep -qx "$name hspmv $ver ($prec) commit [^ ][^ ]*" "$t/out" && [ "$(wc -l < "$t/out")" = 1 ]; then
            ok "$name --version: $(cat "$t/out")"
        else echo "(exit $rc)" >> "$t/out"; bad "$name --version says '$name hspmv $ver ($prec) commit C'"; fi
        case $p in benchmark-mpi|hspmv-solve) run="timeout 60 $MPIRUN -n 1" ;; *) run="timeout 60" ;; esac
        $run "$bin" --help > "$t/out" 2>&1; rc=$?
        if [ $rc = 0 ] && grep -q "^usage: \(mpirun -n P \)\{0,1\}$name " "$t/out"; then ok "$name --help: exit 0, the usage names $name"
        else echo "(exit $rc)" >> "$t/out"; bad "$name --help exits 0 with a usage naming $name"; fi
    done
done

# the installed scripts: --help, and --version finding PREFIX/include
for f in run_all-omp.sh run_all-mpi.sh run_all-light.sh; do
    sh "$pre/share/hspmv/$f" --version > "$t/out" 2>&1; rc=$?
    if [ $rc = 0 ] && [ "$(cat "$t/out")" = "$f hspmv $ver" ] && sh "$pre/share/hspmv/$f" --help > /dev/null 2>&1; then
        ok "installed $f --version: $(cat "$t/out"), --help"
    else bad "installed $f --version says '$f hspmv $ver' (exit $rc), --help exits 0"; fi
done
if command -v python3 > /dev/null 2>&1; then
    "$pre/share/hspmv/scripts/plot" --version > "$t/out" 2>&1; rc=$?
    if [ $rc = 0 ] && [ "$(cat "$t/out")" = "plot hspmv $ver" ]; then ok "installed scripts/plot --version: $(cat "$t/out")"
    else bad "installed scripts/plot --version says 'plot hspmv $ver' (exit $rc)"; fi
fi

# 6. uninstall double: single's files stay (share/hspmv too); then single:
#    nothing of hspmv is left in the prefix
if (cd "$root" && $MAKE --no-print-directory -s uninstall PRECISION=double PREFIX="$pre") > "$t/out" 2>&1; then
    comm -23 "$t/files-single" "$t/files-double" > "$t/single-own"
    grep '^\./share/hspmv/' "$t/files-double" >> "$t/single-own"
    if [ "$(files)" = "$(sort "$t/single-own")" ]; then
        ok "make uninstall PRECISION=double leaves exactly single's files and share/hspmv"
    else files | diff - "$(sort "$t/single-own" > "$t/so"; echo "$t/so")" > "$t/out"; bad "uninstall double leaves single's files"; fi
else bad "make uninstall PRECISION=double"; fi
if (cd "$root" && $MAKE --no-print-directory -s uninstall PRECISION=single PREFIX="$pre") > "$t/out" 2>&1; then
    cp "$t/out" "$t/un"
    left=$(cd "$pre" && find . \( -type f -o -type l -o -name '*hspmv*' \) | sort)
    if [ -z "$left" ]; then ok "make uninstall PRECISION=single: no hspmv file or folder left in the prefix"
    else echo "$left" > "$t/out"; bad "uninstall leaves no hspmv file (left above)"; fi
    folders=$(cd "$pre" && find . -type d | sort | tr '\n' ' ')
    if [ "$folders" = ". ./lib ./lib/user " ]; then ok "make uninstall: no empty folder install made is left; the user's lib/user kept"
    else echo "$folders" > "$t/out"; bad "uninstall leaves only the folders that were there before (left above)"; fi
    if grep -q 'uninstall: removing .*share/hspmv' "$t/un" && ! grep -q '^rm -f the' "$t/un"; then
        ok "make uninstall says what it removes in words, no echo that reads like a command"
    else bad "make uninstall's lines"; fi
else bad "make uninstall PRECISION=single"; fi

finish
