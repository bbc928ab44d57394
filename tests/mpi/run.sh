#!/bin/sh
# run.sh — runs the MPI tests under mpirun at several rank and thread counts,
# plus the bad-file checks, and records "P F S" like tests/run.sh.
#   run.sh [--record FILE] BINDIR
# MPI_TEST_RANKS (default "1 2 3 4 5 8"), MPI_TEST_THREADS (default "1 2"),
# MPI_TEST_RANKS_THREADED (the rank counts run with more than one thread,
# whether or not in MPI_TEST_RANKS, default "1 3 5": 8 ranks x 2 threads on a 2-core machine took a
# quarter of the suite's time, and 2 or 4 ranks in pseudo-nodes of 2 add
# nothing that 3 and 5 do not),
# MPI_TEST_TIMEOUT (seconds per mpirun, default 300), MPI_BAD_RANKS (the
# bad-file loop's rank counts, default "1 3 8"; 1 is always run: the
# parallel read's message is compared with the root read's at 1 rank).
set -u
. "$(dirname "$0")/../counts.sh"
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
bindir=${1:?usage: run.sh [--record FILE] BINDIR}
ranks=${MPI_TEST_RANKS:-1 2 3 4 5 8}
ranks_threaded=" ${MPI_TEST_RANKS_THREADED:-1 3 5} "
threads=${MPI_TEST_THREADS:-1 2}
bad_ranks=$(echo 1 ${MPI_BAD_RANKS:-1 3 8} | tr ' ' '\n' | sort -nu | tr '\n' ' ')
root_last=$(for p in $bad_ranks; do [ "$p" -le 4 ] && echo "$p"; done | tail -1)  # the root read: up to 4 ranks
par_last=$(echo $bad_ranks | tr ' ' '\n' | tail -1)
tmo=${MPI_TEST_TIMEOUT:-300}
P=0; F=0; S=0

# Open MPI on a small box: more ranks than cores, shared memory only, and root allowed.
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# A job that ends with a non-zero exit is torn down at once: mpirun otherwise
# waits 1 s per run between SIGTERM and SIGKILL of ranks that have already
# left (the programs finish MPI before exiting, so nothing is cut short).
export OMPI_MCA_odls_base_sigkill_timeout=0
# Oversubscribed, spinning OpenMP threads starve the ranks they share a core
# with (8 ranks x 2 threads: minutes instead of seconds); sleep instead.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
record_and_exit() {
    if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
    echo "mpi: $P passed, $F failed, $S skipped"
    [ -n "$record" ] || [ "$F" -eq 0 ]
    exit $?
}
if ! command -v mpirun >/dev/null 2>&1; then
    echo "mpi: mpirun not found: MPI tests NOT run"; F=1; record_and_exit
fi

out=$(mktemp)
# one thread at $ranks, more at $ranks_threaded (which need not be in $ranks)
all_ranks=$(echo $ranks $ranks_threaded | tr ' ' '\n' | sort -nu | tr '\n' ' ')
for t in $threads; do
    for p in $all_ranks; do
        if [ "$t" -gt 1 ]; then case "$ranks_threaded" in *" $p "*) ;; *) continue ;; esac
        else case " $ranks " in *" $p "*) ;; *) continue ;; esac; fi
        for bin in "$bindir"/test_*; do
            [ -x "$bin" ] || continue
            name=$(basename "$bin")
            # every other run sends the slices in small pieces (the > 2^31 path)
            # and multiplies the owned block in 3 parts (MPI_Testall between
            # them): the library's test switch HSPMV_TEST; and cuts the machine
            # into pseudo-nodes of 2 ranks (the off-node path of halo "node",
            # the default). test_dist also runs once with halo "p2p". MT_HALO
            # and MT_NODE_RANKS are the tests' own variables (mt_opts in
            # mpitest.h puts them in the options; test_node sets its own modes)
            test=""; noder=""; halos="default"
            [ "$t" = 2 ] && test=dist_chunk=1000,dist_pieces=3 && noder=2
            [ "$t" = 1 ] && [ "$name" = test_dist ] && halos="default p2p"
            for halo in $halos; do
                h=""; [ "$halo" = p2p ] && h=p2p
                start=$(date +%s)
                OMP_NUM_THREADS=$t HSPMV_TEST=$test MT_NODE_RANKS=$noder MT_HALO=$h \
                    timeout "$tmo" $MPIRUN -n "$p" "$bin" > "$out" 2>&1
                rc=$?
                secs=$(( $(date +%s) - start ))
                tally "$name at $p ranks" "$rc" "$out"
                label="halo $halo"; [ -n "$noder" ] && label="$label, pseudo-nodes of $noder"
                echo "   $name ranks=$p threads=$t ($label): $p1 passed, $f1 failed, $s1 skipped (${secs}s)"
                P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
            done
        done
    done
done

# Bad files: every rank reports the same status and message and the program
# exits non-zero quickly (no rank left waiting); with every rank reading a
# byte range too, and then the message is the root read's.
bad=$(mktemp -d)
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n' > "$bad/out_of_range.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1.0\n2 2 2.0\n' > "$bad/truncated.mtx"
printf '%%%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.0 2.0\n' > "$bad/complex.mtx"
printf 'this is not a matrix\n' > "$bad/garbage.mtx"
# issue 10: duplicates summing to inf, a byte-order mark, and a FIFO nobody
# writes (rank 0 used to block in open() while the others spun in MPI_Bcast)
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e308\n1 1 1e308\n' > "$bad/dup_inf.mtx"
printf '\357\273\277%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n' > "$bad/bom.mtx"
mkfifo "$bad/fifo.mtx" 2>/dev/null
# issue 14: faults past a range boundary at 8 ranks, a long file with one bad line far in
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print "% c"; print "400 400 400";
             for (i = 1; i <= 400; i++) { if (i == 333) print "333 x 1"; else print i, i, i / 7 } }' > "$bad/far_bad_line.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n1 1 1\n2 1 2\n3 4 3\n' > "$bad/sym_above.mtx"
# PETSc binary files (read with MPI-IO by every rank): big-endian 4-byte
# integers (class id 1211216, rows, cols, entries, row lengths, columns)
# and 8-byte doubles (1.0 is 3ff0000000000000)
be32() { for v in "$@"; do v=$((v & 0xFFFFFFFF))
    printf "\\$(printf %o $((v >> 24 & 255)))\\$(printf %o $((v >> 16 & 255)))\\$(printf %o $((v >> 8 & 255)))\\$(printf %o $((v & 255)))"
done; }
one() { for v in "$@"; do printf '\077\360\000\000\000\000\000\000'; done; }
{ be32 1211216 3 3 2 1 1; } > "$bad/petsc_truncated.petsc"                       # no columns, no values
{ be32 1211216 2 2 1 2 -1 0; one 1; } > "$bad/petsc_negative_length.petsc"
{ be32 1211216 2 2 2 1 1 0 5; one 1 1; } > "$bad/petsc_column_range.petsc"
{ be32 1211216 2 2 3 1 1 0 1; one 1 1; } > "$bad/petsc_sum.petsc"               # lengths sum to 2, header says 3
{ be32 1211216 2147483647 2147483647 1; } > "$bad/petsc_huge.petsc"              # 2^31-1 rows in 16 bytes
{ be32 1211216 -5 2 1; } > "$bad/petsc_negative_rows.petsc"
for f in "$bad/out_of_range.mtx" "$bad/truncated.mtx" "$bad/complex.mtx" "$bad/garbage.mtx" "$bad/missing.mtx" \
         "$bad/dup_inf.mtx" "$bad/bom.mtx" "$bad/fifo.mtx" "$bad/far_bad_line.mtx" "$bad/sym_above.mtx" \
         "$bad/petsc_truncated.petsc" "$bad/petsc_negative_length.petsc" "$bad/petsc_column_range.petsc" \
         "$bad/petsc_sum.petsc" "$bad/petsc_huge.petsc" "$bad/petsc_negative_rows.petsc"; do
    for read in root parallel; do
    for p in $bad_ranks; do
        [ "$read" = root ] && [ "$p" -gt 4 ] && continue
        start=$(date +%s)
        timeout 60 $MPIRUN -n "$p" "$bindir/mpi_badfile" "$f" $read > "$out" 2>&1
        rc=$?
        secs=$(( $(date +%s) - start ))
        lines=$(grep -c '^rank [0-9]*: status' "$out")
        distinct=$(grep '^rank [0-9]*: status' "$out" | sed 's/^rank [0-9]*: //' | sort -u | wc -l)
        msg=$(grep '^rank 0: status' "$out" | head -1)
        [ "$read" = root ] && [ "$p" = 1 ] && root_msg=${msg#rank 0: }
        # the parallel read gives the root read's message, at every rank count
        same=1; [ "$read" = parallel ] && [ "${msg#rank 0: }" != "$root_msg" ] && same=0
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$lines" -eq "$p" ] && [ "$distinct" -eq 1 ] && \
           [ "$same" = 1 ] && ! grep -q 'status 0:' "$out"; then
            P=$((P + 1))
            [ "$p" = "$root_last" ] && [ "$read" = root ] && echo "   bad file $(basename "$f") at ranks $(echo $bad_ranks | sed 's/ [5-9][0-9]*//g; s/ [1-9][0-9][0-9]*//g'): exit $rc in ${secs}s, every rank: ${msg#rank 0: }"
            [ "$p" = "$par_last" ] && [ "$read" = parallel ] && echo "   bad file $(basename "$f"), parallel read at ranks $bad_ranks: the root read's message"
        else
            F=$((F + 1))
            echo "FAIL bad file $(basename "$f") ($read read) at $p ranks: exit $rc, $lines lines, $distinct distinct messages, same as root: $same"
            [ "$same" = 0 ] && echo "  root: $root_msg"
            head -20 "$out"
        fi
    done
    done
done
rm -rf "$bad" "$out"
record_and_exit
