#!/usr/bin/env bash
# Model v4 on the CPU (docs/data.md, "The CPU track"): one command starts or resumes it.
#
#   V4DATA=DIR TATOEBA=deu-eng.zip bash bench/v4_cpu.sh [start]   # start, or resume what stopped
#   bash bench/v4_cpu.sh status                                   # where it stands
#   bash bench/v4_cpu.sh stop                                     # stop it (start resumes)
#   PRINT=1 ... bash bench/v4_cpu.sh                              # print the commands, run nothing
#
# V4DATA holds what bench/v4_data.py wrote (--debian); TATOEBA is the corpus every release trained
# on first (its dev and test splits are the releases'). In the background, at `nice -n 19`, one
# thread each, three jobs that each resume where they stopped:
#   1. the back-translation of EuroParlMin's English ($V4DATA/europarl/en.txt) with
#      checkpoints/en-de.pt, in SHARDS shards, BT_JOBS at a time, into $V4DATA/bt/europarl.K.tsv.gz
#      (commands.backtranslate resumes a shard from its .part file); once all are done, their
#      concatenation $V4DATA/bt/europarl.tsv.gz (what bench/v4_mixture.sh takes) and its SHA-256;
#   2. the fine-tune of v3.8 (train.py --init checkpoints/de-en.pt, then --resume) in $RUN: v3.8's
#      seven corpora at v3.8's weights, the back-translated debates (the shards done when the run
#      started, listed in $RUN/debates.txt and kept for every resume), MLQE-PE, MT4All, the Debian
#      Reference, --concat-share 0.1; GPL-2.0-only, as v3.8 (no CC BY-SA text). A new run waits
#      until MIN_SHARDS shards are done;
#   3. every EVAL_EVERY steps, the snapshot scored as served (CTranslate2 int8, beam 4, the
#      pipeline, the noisy channel of checkpoints/en-de.pt) on the news (newstest2019), Wikipedia
#      (MLQE-PE dev), support, Tatoeba and UI dev sets; v3.8 first, on the same splits. One JSON
#      line a checkpoint in $RUN/served.jsonl, a summary line in $RUN/train.log. The snapshots
#      scored stay in $RUN/served/ (for commands.average).
# While a `.ci/run` runs on this machine, all of it is paused (SIGSTOP, then SIGCONT).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
RUN=${RUN:-runs/v4cpu}
SHARDS=${SHARDS:-8}; BT_JOBS=${BT_JOBS:-2}; MIN_SHARDS=${MIN_SHARDS:-2}; EVAL_EVERY=${EVAL_EVERY:-2000}
# OWN_WEIGHT multiplies the weights of v3.8's own corpora (Tatoeba, Ding, the catalogs, the help):
# more of them keeps more of what v3.8 knew (its Tatoeba and UI scores) against the new text.
OWN_WEIGHT=${OWN_WEIGHT:-1}
CHANNEL=${CHANNEL:-checkpoints/en-de.pt}
DING=${DING:-/usr/share/trans/de-en}; DEBIAN_REFERENCE=${DEBIAN_REFERENCE:-/usr/share/debian-reference}
ACTION=${1:-start}
DEBATES_ATTRIBUTION="European Parliament debates (EuroParlMin, github.com/ufal/europarlmin 7e8a0dd); German by back-translation with checkpoints/en-de.pt"
niced() { OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 19 "$@"; }
exec 3>&1
run() { if [ -n "${PRINT:-}" ]; then printf '%q ' "$@" >&3; echo >&3; else "$@"; fi; }

case $ACTION in
  status)
    [ -f "$RUN/supervisor.pid" ] && kill -0 "$(cat "$RUN/supervisor.pid")" 2>/dev/null && echo "running (pid $(cat "$RUN/supervisor.pid"))" || echo "not running"
    for f in "${V4DATA:-.gpu/v4data}"/bt/europarl.*.tsv.gz.part.json; do [ -f "$f" ] && echo "$(basename "$f" .part.json): $(grep -o '"done": [0-9]*' "$f")"; done
    ls "${V4DATA:-.gpu/v4data}"/bt/europarl.*.tsv.gz 2>/dev/null | sed 's/^/done: /' || true
    grep -E "^(step|eval|served)" "$RUN/train.log" 2>/dev/null | tail -n 5 || true
    exit 0 ;;
  stop)
    [ -f "$RUN/supervisor.pid" ] && kill -- "-$(cat "$RUN/supervisor.pid")" 2>/dev/null && echo "stopped" || echo "not running"
    exit 0 ;;
  start|_jobs) ;;
  *) echo "v4_cpu: unknown action '$ACTION' (start, status, stop)" >&2; exit 2 ;;
esac
[[ $OWN_WEIGHT =~ ^[0-9]+([.][0-9]+)?$ && ! $OWN_WEIGHT =~ ^0+([.]0+)?$ ]] ||
  { echo "v4_cpu: OWN_WEIGHT must be a number > 0, got '$OWN_WEIGHT'" >&2; exit 2; }
: "${V4DATA:?set V4DATA to the folder bench/v4_data.py wrote}" "${TATOEBA:?set TATOEBA to deu-eng.zip}"
for f in "$V4DATA/europarl/en.txt" "$V4DATA/mlqe/mlqe-train.de" "$V4DATA/mlqe/mlqe-dev.de" "$V4DATA/mt4all/customer_support.deu" \
         "$V4DATA/wmt/newstest2019.de-en.de" "$V4DATA/debian/root/usr/lib/libreoffice/program/resource/de/LC_MESSAGES" "$TATOEBA" \
         "$DING" "$DEBIAN_REFERENCE"; do
  [ -e "$f" ] || { echo "v4_cpu: no $f (bench/v4_data.py --debian writes V4DATA; apt-get install trans-de-en debian-reference-de debian-reference-en)" >&2; exit 2; }
done
mkdir -p "$RUN" "$V4DATA/bt"

if [ "$ACTION" = start ] && [ -z "${PRINT:-}" ]; then
  if [ -f "$RUN/supervisor.pid" ] && kill -0 "$(cat "$RUN/supervisor.pid")" 2>/dev/null; then
    echo "v4_cpu: already running (pid $(cat "$RUN/supervisor.pid")); bash bench/v4_cpu.sh status" >&2; exit 0
  fi
  setsid nohup bash "$0" _jobs >> "$RUN/supervisor.log" 2>&1 < /dev/null &
  echo $! > "$RUN/supervisor.pid"
  echo "v4_cpu: started (pid $!): $RUN/train.log, $RUN/served.jsonl; bash bench/v4_cpu.sh status"
  exit 0
fi

shard() {  # K: one shard of the debates back-translated (resumed from its .part)
  run niced "$PYTHON" -m commands.backtranslate --checkpoint checkpoints/en-de.pt --text "$V4DATA/europarl/en.txt" \
    --sentences --shard "$1/$SHARDS" --out "$V4DATA/bt/europarl.$1.tsv.gz" --engine ct2 --threads 1 --no-progress \
    --attribution "$DEBATES_ATTRIBUTION" >> "$RUN/backtranslate.log" 2>&1
}

backtranslate() {  # shards not yet done, BT_JOBS at a time; then the whole file
  local k pids=()
  for k in $(seq 1 "$SHARDS"); do
    [ -f "$V4DATA/bt/europarl.$k.tsv.gz" ] && continue
    if [ -n "${PRINT:-}" ]; then shard "$k"; continue; fi   # in order, each printed before the next
    shard "$k" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$BT_JOBS" ]; then wait "${pids[0]}" || true; pids=("${pids[@]:1}"); fi
  done
  [ ${#pids[@]} -gt 0 ] && wait "${pids[@]}" || true
  local all=(); for k in $(seq 1 "$SHARDS"); do all+=("$V4DATA/bt/europarl.$k.tsv.gz"); done
  if [ -z "${PRINT:-}" ] && ls "${all[@]}" > /dev/null 2>&1 && [ ! -f "$V4DATA/bt/europarl.tsv.gz" ]; then
    cat "${all[@]}" > "$V4DATA/bt/europarl.tsv.gz.tmp" && mv "$V4DATA/bt/europarl.tsv.gz.tmp" "$V4DATA/bt/europarl.tsv.gz"
    sha256sum "$V4DATA/bt/europarl.tsv.gz" >> "$RUN/backtranslate.log"
  fi
}

own() { awk -v w="$1" -v m="$OWN_WEIGHT" 'BEGIN { printf "%g", w * m }'; }  # WEIGHT times OWN_WEIGHT

train() {
  local deb=$V4DATA/debian/root debates=()
  while [ -z "${PRINT:-}" ] && [ ! -f "$RUN/debates.txt" ] \
        && [ "$(ls "$V4DATA"/bt/europarl.[0-9]*.tsv.gz 2>/dev/null | wc -l)" -lt "$MIN_SHARDS" ]; do
    kill -0 "$BT_PID" 2>/dev/null || break   # the back-translation stopped short: train on what there is
    sleep 60
  done
  if [ ! -f "$RUN/debates.txt" ]; then  # the shards done now: this run's, for every resume
    ls "$V4DATA"/bt/europarl.[0-9]*.tsv.gz 2>/dev/null > "$RUN/debates.txt.tmp" || true
    [ -n "${PRINT:-}" ] || mv "$RUN/debates.txt.tmp" "$RUN/debates.txt"
  fi
  local listed=$RUN/debates.txt; [ -f "$listed" ] || listed=$RUN/debates.txt.tmp   # PRINT=1 writes no list
  while read -r f; do debates+=(--data "$f"); done < "$listed"
  local start=(--init checkpoints/de-en.pt); [ -f "$RUN/last.pt" ] && start=(--resume)
  run niced "$PYTHON" train.py --out "$RUN" "${start[@]}" --seed 1 \
    --data "$TATOEBA@$(own 2)" \
    --data "ding-sentences:$DING@$(own 3)" \
    --data "ding-words:$DING@$(own 0.3)" \
    --data "gettext:/usr/share/locale/de/LC_MESSAGES@$(own 2)" \
    --data "gettext:$deb/usr/lib/libreoffice/program/resource/de/LC_MESSAGES@$(own 2)" \
    --data "mozilla:$deb/usr/lib@$(own 2)" \
    --data "libreoffice-help:$deb/usr/share/libreoffice/help@$(own 1)" \
    --data "support:$V4DATA/mt4all/customer_support@5" \
    --data "$V4DATA/mlqe/mlqe-train@5" \
    --data "debian-reference:$DEBIAN_REFERENCE@2" \
    "${debates[@]}" \
    --concat-share 0.1 --dropout 0.15 --max-tokens 2048 --lr 3e-4 --warmup 300 \
    --save-every 200 --keep-checkpoints 5 --eval-every "$EVAL_EVERY" --eval-sentences 300 --no-progress --log-every 50 \
    --data-attribution "Tatoeba (tatoeba.org), CC BY 2.0 FR" \
    --data-attribution "Ding de-en dictionary (Frank Richter), GPL-2.0-or-later" \
    --data-attribution "Debian gettext catalogs (/usr/share/locale/de), their packages' licences (git's GPL-2.0-only among them)" \
    --data-attribution "LibreOffice UI and help (libreoffice-l10n-de, libreoffice-help-de/en-us), MPL-2.0" \
    --data-attribution "Firefox ESR and Thunderbird language packs (firefox-esr-l10n-de, thunderbird-l10n-de), MPL-2.0" \
    --data-attribution "MT4All customer support test set (ELRC, via github.com/Helsinki-NLP/OPUS-MT-testsets), CC0" \
    --data-attribution "MLQE-PE post-editing data (Fomicheva et al. 2022, github.com/sheffieldnlp/mlqe-pe), CC0" \
    --data-attribution "Debian Reference (Osamu Aoki et al., debian-reference-de/-en), GPL-2.0-or-later" \
    --data-attribution "$DEBATES_ATTRIBUTION" \
    --license GPL-2.0-only >> "$RUN/train.log" 2>&1
}

served_scores() {  # CKPT NAME: one JSON line of the dev sets, as served
  local ckpt=$1 name=$2 set
  local line="{\"checkpoint\": \"$name\""
  local -A sets=([news]="--src $V4DATA/wmt/newstest2019.de-en.de --ref $V4DATA/wmt/newstest2019.de-en.en"
                 [wikipedia]="--data $V4DATA/mlqe/mlqe-dev" [support]="--data $RUN/dev.support.tsv"
                 [tatoeba]="--data $RUN/dev.tsv" [ui]="--data $RUN/dev.ui.tsv")
  for set in news wikipedia support tatoeba ui; do
    # shellcheck disable=SC2086
    line+=", \"$set\": $(niced "$PYTHON" -m commands.evaluate --checkpoint "$ckpt" --engine ct2 --threads 1 \
                         --channel "$CHANNEL" ${sets[$set]} --json 2>> "$RUN/served.err" || echo null)"
  done
  echo "$line}" >> "$RUN/served.jsonl"
  echo "served $name: $(tail -n 1 "$RUN/served.jsonl")" >> "$RUN/train.log"
}

score_snapshots() {  # v3.8 once, then each EVAL_EVERY-th snapshot (hard-linked: train.py prunes its own)
  mkdir -p "$RUN/served"
  while true; do
    if [ -f "$RUN/dev.ui.tsv" ] && ! grep -q '"checkpoint": "v3.8"' "$RUN/served.jsonl" 2>/dev/null; then
      served_scores checkpoints/de-en.pt v3.8
    fi
    for f in "$RUN"/step-*.pt; do
      [ -f "$f" ] || continue
      local step=$((10#$(basename "$f" .pt | sed 's/step-//')))
      (( step % EVAL_EVERY == 0 )) || continue
      [ -f "$RUN/served/$(basename "$f")" ] && continue
      ln "$f" "$RUN/served/$(basename "$f")" 2>/dev/null || cp "$f" "$RUN/served/"
      served_scores "$RUN/served/$(basename "$f")" "step $step"
    done
    kill -0 "$TRAIN_PID" 2>/dev/null || break
    sleep 60
  done
}

pause_during_ci() {  # a process group of its own, so that stopping the jobs does not stop it
  local group=$1 paused=0
  while kill -0 -- "-$group" 2>/dev/null; do
    if pgrep -f '^bash (\S*/)?\.ci/run$' > /dev/null; then   # CI's own command line, not one that names it
      [ $paused = 1 ] || { kill -STOP -- "-$group"; paused=1; echo "$(date -u +%FT%TZ) paused for a .ci/run" >> "$RUN/supervisor.log"; }
    elif [ $paused = 1 ]; then
      kill -CONT -- "-$group"; paused=0; echo "$(date -u +%FT%TZ) resumed" >> "$RUN/supervisor.log"
    fi
    sleep 5
  done
}

if [ -n "${PRINT:-}" ]; then backtranslate; train; exit 0; fi
export -f pause_during_ci
RUN=$RUN setsid bash -c "pause_during_ci $$" &
backtranslate &
BT_PID=$!
train &
TRAIN_PID=$!
score_snapshots &
wait
