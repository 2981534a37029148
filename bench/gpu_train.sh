#!/usr/bin/env bash
# One training chunk on a lent GPU (the device tool), on a mixture written by commands.mixture.
#
#   python -m commands.mixture --data ... --out .gpu/mix --license ... --data-attribution ...  # here, ~13 MiB
#   bash bench/gpu_check.sh prepare                      # here: .gpu/whl-train (train.py's imports beyond the image)
#   bash bench/gpu_train.sh NAME [train.py args]         # there: run(command=..., carry=[".gpu/mix", ".gpu/whl-train"])
#   DEVICE=cpu bash bench/gpu_train.sh NAME ...          # a dry run on the CPU (tests/test_gpu_train.py)
#
# Runs train.py with the mixture's arguments ($MIX/train-args.txt), then the given ones, on
# DEVICE, with a snapshot of the weights every SAVE_EVERY steps. A watchdog stops it DEADLINE
# seconds after this script started: SIGTERM, on which train.py saves the step it is at, and
# SIGKILL GRACE seconds later if it is still running (the device tool's per-command limit is 10
# minutes; train.py's --max-minutes counts from its first step, after the data). Then the
# snapshots of the run's last part (steps >= AVERAGE x the last step) are averaged, and $OUT gets:
#   NAME.pt.00, NAME.pt.01, ...  the averaged weights, fp16, without lexicon, in 15 MiB pieces (the
#                                device tool returns at most 8 files of 16 MiB, 64 MiB in all)
#   NAME.logs.tar.gz             train.py's log, metrics.jsonl, what was averaged, the SHA-256
# Back here: cat NAME.pt.?? > NAME.pt; python -m commands.lexicon NAME.pt --data (the mixture's files).
# Two runs share one GPU when started side by side (NAME differs):
#   bash bench/gpu_train.sh A ... & bash bench/gpu_train.sh B --init checkpoints/de-en.pt ... & wait
# EVAL="SET ..." scores the averaged weights on each held-out SET on DEVICE (commands.evaluate --raw
# --beam 4 --json; SET a corpus, or SRC:REF line-aligned files) into the logs' eval.jsonl, so that runs
# whose weights cannot all come back (64 MiB a call) are still compared.
# DROP=TEXT leaves out the mixture's corpora whose file name holds TEXT (its --data and its record in
# sources.json): an ablation on the same files, held-out splits and vocabulary, e.g.
#   bash bench/gpu_train.sh v4b ... & DROP=-ewt bash bench/gpu_train.sh v4b-nobt ... & wait
set -uo pipefail
cd "$(dirname "$0")/.."
START=$(date +%s)
NAME=${1:?usage: bash bench/gpu_train.sh NAME [train.py args]}
shift
[[ $NAME =~ ^[A-Za-z0-9_-]+$ ]] || { echo "gpu_train: NAME must be letters, digits, _ and -, got '$NAME'" >&2; exit 2; }
DEVICE=${DEVICE:-cuda}; PYTHON=${PYTHON:-python3}
MIX=${MIX:-.gpu/mix}; OUT=${OUT:-out/gpu_train}; WORK=${WORK:-/tmp/gpu_train}
DEADLINE=${DEADLINE:-540}; GRACE=${GRACE:-30}; SAVE_EVERY=${SAVE_EVERY:-250}; AVERAGE=${AVERAGE:-0.7}
RUN=$WORK/$NAME
LOGS=$RUN/logs
[ -f "$MIX/train-args.txt" ] || { echo "gpu_train: no $MIX/train-args.txt: write the mixture with python -m commands.mixture --out $MIX" >&2; exit 2; }
rm -rf "$RUN"; mkdir -p "$LOGS" "$OUT"
export PYTHONUNBUFFERED=1
elapsed() { echo $(( $(date +%s) - START )); }
note() { echo "$NAME: $*" | tee -a "$LOGS/times.txt"; }

if [ "$DEVICE" != cpu ] && compgen -G ".gpu/whl-train/*.whl" > /dev/null; then  # train.py's imports beyond the image
  "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site-$NAME" \
    .gpu/whl-train/*.whl > "$LOGS/install.txt" 2>&1 || note "wheels of .gpu/whl-train did not install (see install.txt)"
  export PYTHONPATH="$WORK/site-$NAME${PYTHONPATH:+:$PYTHONPATH}"
fi
ARGS_FILE=$MIX/train-args.txt
if [ -n "${DROP:-}" ]; then  # an ablation: the mixture's files, splits and vocabulary, less some corpora
  "$PYTHON" - "$MIX" "$DROP" "$RUN" > "$RUN/dropped.txt" <<'EOF' || exit 2
import json, sys
from pathlib import Path
mix, drop, run = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
args, kept, dropped, i = (mix / "train-args.txt").read_text(encoding="utf-8").splitlines(), [], set(), 0
while i < len(args):  # one argument a line: a flag, then its value
    if args[i] in ("--data", "--data-sources"):
        flag, value = args[i], args[i + 1]
        file = Path(value).name.rpartition("@")[0] or Path(value).name  # less its @WEIGHT
        if flag == "--data" and drop in file:
            dropped.add(file)
        elif flag == "--data-sources":  # what the checkpoint says it learned from: the corpora kept
            kept += [flag, str(run / "sources.json")]
        else:
            kept += [flag, value]
        i += 2
    else:
        kept.append(args[i])
        i += 1
if not dropped:
    sys.exit(f"gpu_train: DROP={drop} names no corpus of {mix / 'train-args.txt'}")
sources = [s for s in json.loads((mix / "sources.json").read_text(encoding="utf-8")) if s["file"] not in dropped]
(run / "sources.json").write_text(json.dumps(sources, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
(run / "train-args.txt").write_text("".join(f"{a}\n" for a in kept), encoding="utf-8")
print("\n".join(f"left out: {name}" for name in sorted(dropped)))
EOF
  while read -r line; do note "$line"; done < "$RUN/dropped.txt"
  ARGS_FILE=$RUN/train-args.txt
fi
mapfile -t MIX_ARGS < "$ARGS_FILE"
# --no-lexicon: the weights come back without it (rebuilt here), so train.py need not build one
"$PYTHON" train.py "${MIX_ARGS[@]}" --out "$RUN/train" --device "$DEVICE" --no-progress --save-every "$SAVE_EVERY" \
  --keep-checkpoints 1000 --no-lexicon "$@" > "$LOGS/train.log" 2>&1 &
TRAIN=$!
while kill -0 $TRAIN 2> /dev/null; do
  if [ "$(elapsed)" -ge "$DEADLINE" ]; then
    note "watchdog: stopped at $(elapsed) s"
    # TERM, not INT: a background job of a script ignores SIGINT. train.py ends its step and saves
    # last.pt and a snapshot of that step; KILL after GRACE seconds if it has not (the snapshots are
    # written atomically, so even then only the steps since the last one are lost).
    kill -TERM $TRAIN 2> /dev/null
    for _ in $(seq "$GRACE"); do kill -0 $TRAIN 2> /dev/null || break; sleep 1; done
    kill -KILL $TRAIN 2> /dev/null
    break
  fi
  sleep 1
done
wait $TRAIN
note "train.py exit $? at $(elapsed) s; $(grep -o 'done: step [0-9]*' "$LOGS/train.log" | tail -1)"
cp "$RUN/train/metrics.jsonl" "$LOGS/" 2> /dev/null
SNAPSHOTS=$("$PYTHON" - "$RUN/train" "$AVERAGE" <<'EOF'
import sys
from pathlib import Path
snaps = {int(p.stem.split("-")[1]): p for p in Path(sys.argv[1]).glob("step-*.pt")}
last = max(snaps, default=0)
print("\n".join(str(snaps[s]) for s in sorted(snaps) if s >= float(sys.argv[2]) * last))
EOF
)
status=1
if [ -n "$SNAPSHOTS" ]; then
  mapfile -t SNAPSHOTS <<< "$SNAPSHOTS"
  "$PYTHON" -m commands.average "${SNAPSHOTS[@]}" --half --out "$RUN/$NAME.pt" >> "$LOGS/times.txt" 2>&1 &&
  split -b 15M -d "$RUN/$NAME.pt" "$OUT/$NAME.pt." &&
  (cd "$RUN" && sha256sum "$NAME.pt") >> "$LOGS/times.txt"
  status=$?
  note "averaged ${#SNAPSHOTS[@]} snapshot(s): $(basename "${SNAPSHOTS[0]}") .. $(basename "${SNAPSHOTS[-1]}")"
else
  note "no snapshot to average"
fi
if [ -n "${EVAL:-}" ] && [ -f "$RUN/$NAME.pt" ]; then  # the averaged weights on held-out sets, on DEVICE
  for set in $EVAL; do
    if [[ $set == *:* ]]; then data=(--src "${set%%:*}" --ref "${set#*:}"); else data=(--data "$set"); fi
    result=$("$PYTHON" -m commands.evaluate --checkpoint "$RUN/$NAME.pt" "${data[@]}" --raw --beam 4 \
      --device "$DEVICE" --json 2>> "$LOGS/eval.err") &&
      "$PYTHON" -c 'import json, sys; print(json.dumps({"set": sys.argv[1], **json.loads(sys.argv[2])}))' \
        "$set" "$result" >> "$LOGS/eval.jsonl" || note "evaluate $set failed (see eval.err)"
  done
  note "evaluated on: $EVAL"
fi
tar czf "$OUT/$NAME.logs.tar.gz" -C "$RUN" logs
tail -n 3 "$LOGS/train.log"
exit $status
