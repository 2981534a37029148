#!/usr/bin/env bash
# The CUDA path, checked on a lent GPU in steps of at most 10 minutes (the device tool's limit).
#
#   bash bench/gpu_check.sh prepare                  # here, on the CPU machine: data and wheels into .gpu/
#   bash bench/gpu_check.sh STEP [STEP ...]          # there (DEVICE=cuda, the default)
#   DEVICE=cpu bash bench/gpu_check.sh all           # a dry run on the CPU, tiny sizes (tests/test_gpu_check.py)
#
# Steps, in order (each appends its figures to $OUT/report.txt; OUT is the device tool's folder):
#   resume     a tiny run trained on the CPU, resumed on DEVICE, resumed on the CPU again
#   torchrun   train.py under torchrun with one process on DEVICE
#   train1     MINUTES (default 1.5) of the PRESET (default small) on the Tatoeba corpus, from scratch;
#   train2     the same run resumed (--resume) for MINUTES more: 3 minutes in all over two commands
#   evaluate   commands.evaluate of the release model on DEVICE and on the CPU (BLEU, chrF, seconds)
#   translate  commands.translate --device DEVICE with both engines, against the CPU's output
#   serve      the Procfile's server with DEVICE set: /health, /translate, /api/attention, the inspector
#   tests      the suite's CUDA-marked tests (pytest -m cuda)
#
# What travels (the device tool's carry, 64 MiB with the working tree): `.gpu` holds the corpus
# (data/), what train.py needs beyond the image (whl-train/, 2 MB: TRAIN_WHEELS below, installed
# before the steps), the app's wheels (whl-app/: flask, gunicorn, plotly, py3langid, ...) and
# CTranslate2's (whl-ct2/, 43 MB: carry it only for `translate`). A call, for example:
#   run(command="bash bench/gpu_check.sh resume torchrun train1", carry=[".gpu"])
# train2 needs train1's run folder, which stays on the machine only while it is warm: run it in the
# same call or the next one within 30 s, or it starts from scratch (and says so).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DEVICE=${DEVICE:-cuda}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-$ROOT/out/gpu_check}
WORK=${WORK:-/tmp/gpu_check}
GPU=$ROOT/.gpu
DATA=${DATA:-$GPU/data/deu-eng.zip}
CHECKPOINT=${CHECKPOINT:-$ROOT/checkpoints/de-en.pt}
if [ "$DEVICE" = cpu ]; then   # dry run: the same commands on tiny sizes
  PRESET=${PRESET:-tiny}; MINUTES=${MINUTES:-0.05}; MAX_TOKENS=${MAX_TOKENS:-512}; SENTENCES=${SENTENCES:-8}
  VOCAB=${VOCAB:-120}
else
  PRESET=${PRESET:-small}; MINUTES=${MINUTES:-1.5}; MAX_TOKENS=${MAX_TOKENS:-32768}; SENTENCES=${SENTENCES:-500}
  VOCAB=${VOCAB:-}
fi
# The distributions train.py imports (tests/test_gpu_check.py compares them with `import train`): those
# the device image holds (the device tool's KINDS.md), those carried as wheels in whl-train/ at the
# versions installed here, and those imported only where installed (portalocker's optional Redis lock).
IMAGE_HAS=(torch sentencepiece sacrebleu numpy tqdm lxml portalocker tabulate colorama typing_extensions setuptools
           prometheus-client wrapt)
TRAIN_WHEELS=(moz.l10n fluent.syntax gitignorant iniparse polib marisa-trie)
# What the served app imports beyond the image and TRAIN_WHEELS (tests/test_gpu_check.py checks it)
APP_WHEELS=(flask werkzeug jinja2 markupsafe itsdangerous click blinker gunicorn packaging plotly narwhals py3langid
            python-docx lxml typing_extensions markdown-it-py mdurl polib simplemma flask-limiter limits deprecated
            ordered-set)
OPTIONAL=(redis cryptography)
mkdir -p "$OUT" "$WORK"
REPORT=$OUT/report.txt
failures=0

say() { echo "$*" | tee -a "$REPORT"; }
step_result() {  # NAME STATUS DETAIL
  if [ "$2" -eq 0 ]; then say "ok    $1: $3"; else say "FAIL  $1: $3 (exit $2; see $OUT/$1.log)"; failures=$((failures + 1)); fi
}
install_wheels() {  # the carried wheels, where the image lacks the packages
  for dir in "$@"; do
    if compgen -G "$GPU/$dir/*.whl" > /dev/null; then
      "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" \
        "$GPU/$dir"/*.whl >> "$OUT/install.log" 2>&1 || say "note  wheels of $dir did not install (see install.log)"
      export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
    fi
  done
}
test_split() {  # German sources and references of the held-out Tatoeba test split, $SENTENCES of them
  "$PYTHON" - "$DATA" "$WORK/test.tsv" "$SENTENCES" <<'EOF'
import sys
from model.data import capped_split, clean_pairs, read_pairs
_, _, test = capped_split(clean_pairs(read_pairs(sys.argv[1])), dev_size=2000, test_size=2000, seed=1)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.writelines(f"{en}\t{de}\n" for de, en in test[: int(sys.argv[3])])
EOF
  cut -f2 "$WORK/test.tsv" > "$WORK/test.de"
}
tok_s() { grep -o 'tok_s [0-9,]*' "$1" | tail -1 | cut -d' ' -f2; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

step_prepare() {  # on the CPU machine, which reaches the package index: what the steps carry
  mkdir -p "$GPU/data" "$GPU/whl-train" "$GPU/whl-app" "$GPU/whl-ct2"
  grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
  cp "${CORPUS:-../shared/data/tatoeba-deu-eng/deu-eng.zip}" "$GPU/data/deu-eng.zip"
  local pip=("$PYTHON" -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp
             --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
  "${pip[@]}" -d "$GPU/whl-app" "${APP_WHEELS[@]}" > "$OUT/prepare.log" 2>&1
  local status=$?
  "${pip[@]}" -d "$GPU/whl-train" $("$PYTHON" -c 'import importlib.metadata as m, sys
print(" ".join(f"{name}=={m.version(name)}" for name in sys.argv[1:]))' "${TRAIN_WHEELS[@]}") >> "$OUT/prepare.log" 2>&1
  status=$((status + $?))
  "${pip[@]}" -d "$GPU/whl-ct2" "ctranslate2>=4.5,<5" pyyaml >> "$OUT/prepare.log" 2>&1
  status=$((status + $?))
  step_result prepare $status "$(du -sh "$GPU/data" "$GPU/whl-train" "$GPU/whl-app" "$GPU/whl-ct2" | awk '{printf "%s %s  ", $2, $1}')"
}

step_resume() {
  local run=$WORK/resume log=$OUT/resume.log args
  rm -rf "$run"
  args=(--data tests/data/pairs40.tsv --valid tests/data/pairs40.tsv --out "$run" --preset tiny --max-tokens 160
        --save-every 10 --eval-every 1000 --no-progress)
  "$PYTHON" train.py "${args[@]}" --device cpu --max-steps 20 > "$log" 2>&1 &&
  "$PYTHON" train.py "${args[@]}" --device "$DEVICE" --max-steps 40 --resume >> "$log" 2>&1 &&
  "$PYTHON" train.py "${args[@]}" --device cpu --max-steps 60 --resume >> "$log" 2>&1
  step_result resume $? "cpu -> $DEVICE -> cpu, $(grep -c '^resumed from' "$log") resumes, $(grep -o 'done: step [0-9]*' "$log" | tail -1)"
}

step_torchrun() {
  local log=$OUT/torchrun.log
  rm -rf "$WORK/torchrun"
  "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=1 train.py --data tests/data/pairs40.tsv \
    --valid tests/data/pairs40.tsv --out "$WORK/torchrun" --preset tiny --max-steps 30 --eval-every 30 \
    --device "$DEVICE" --no-progress > "$log" 2>&1
  step_result torchrun $? "1 process on $DEVICE, $(grep -o 'dev BLEU [0-9.]*' "$log" | tail -1)"
}

train_chunk() {  # NAME: MINUTES of training on the corpus, resumed where the last chunk stopped
  local name=$1 log=$OUT/$1.log run=$WORK/small
  [ -f "$run/last.pt" ] || say "note  $name: no run to resume in $run: starting one"
  "$PYTHON" train.py --data "$DATA" --out "$run" --preset "$PRESET" --device "$DEVICE" --max-tokens "$MAX_TOKENS" \
    --max-minutes "$MINUTES" --lr 1e-3 --warmup 1000 --eval-every 100000 --eval-sentences 200 --save-every 500 \
    --log-every 50 --no-progress --resume ${VOCAB:+--vocab-size "$VOCAB"} > "$log" 2>&1
  step_result "$name" $? "$(grep -o 'done: step [0-9]*' "$log" | tail -1), $(tok_s "$log") target tokens/s, \
$(grep -o 'dev BLEU [0-9.]*' "$log" | tail -1) (--max-tokens $MAX_TOKENS)"
}
step_train1() { rm -rf "$WORK/small"; train_chunk train1; }
step_train2() { train_chunk train2; }

step_evaluate() {
  local log=$OUT/evaluate.log device start status devices=("$DEVICE")
  [ "$DEVICE" != cpu ] && devices+=(cpu)
  test_split
  for device in "${devices[@]}"; do
    start=$(now_ms)
    "$PYTHON" -m commands.evaluate --checkpoint "$CHECKPOINT" --data "$WORK/test.tsv" --device "$device" --beam 4 \
      --json > "$WORK/evaluate.$device.json" 2>> "$log"
    status=$?
    step_result "evaluate-$device" $status "$(cut -c1-60 "$WORK/evaluate.$device.json"), $(wc -l < "$WORK/test.tsv") \
sentences in $(( $(now_ms) - start )) ms"
  done
}

step_translate() {
  local log=$OUT/translate.log engine same
  install_wheels whl-ct2
  [ -f "$WORK/test.de" ] || test_split
  "$PYTHON" -m commands.translate --checkpoint "$CHECKPOINT" --device cpu --engine torch < "$WORK/test.de" \
    > "$WORK/cpu.en" 2>> "$log"
  for engine in torch ct2; do
    local start status
    start=$(now_ms)
    "$PYTHON" -m commands.translate --checkpoint "$CHECKPOINT" --device "$DEVICE" --engine "$engine" \
      < "$WORK/test.de" > "$WORK/$DEVICE.$engine.en" 2>> "$log"
    status=$?
    same=$(paste -d '\t' "$WORK/cpu.en" "$WORK/$DEVICE.$engine.en" | awk -F'\t' '$1 == $2' | wc -l)
    step_result "translate-$engine" $status "$(wc -l < "$WORK/test.de") lines in $(( $(now_ms) - start )) ms, \
$same identical to the CPU's PyTorch output"
  done
}

step_serve() {
  local log=$OUT/serve.log port=${SERVE_PORT:-8765} pid summary status
  install_wheels whl-app
  DEVICE=$DEVICE ENGINE=torch PORT=$port "$PYTHON" -m gunicorn --config gunicorn.conf.py "app:create_app()" > "$log" 2>&1 &
  pid=$!
  summary=$("$PYTHON" bench/serve_check.py "$port" "$pid")
  status=$?
  kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
  step_result serve $status "DEVICE=$DEVICE, one worker: $summary"
}

step_tests() {
  local log=$OUT/tests.log
  install_wheels whl-app whl-ct2
  "$PYTHON" -m pytest -q -m cuda -p no:cacheprovider tests > "$log" 2>&1
  local status=$?
  [ "$status" -eq 5 ] && status=0   # no CUDA-marked test collected is not a failure of the path
  step_result tests $status "$(tail -1 "$log")"
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && { sed -n '2,25p' "$0"; exit 2; }
[ "${steps[0]}" = all ] && steps=(resume torchrun train1 train2 evaluate translate serve tests)
say "gpu_check $(date -u +%FT%TZ) DEVICE=$DEVICE steps: ${steps[*]}"
[ "$DEVICE" != cpu ] && command -v nvidia-smi > /dev/null && say "device: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader)"
[ "$DEVICE" != cpu ] && install_wheels whl-train   # every step runs train.py or imports model.data
for step in "${steps[@]}"; do
  if declare -F "step_$step" > /dev/null; then "step_$step"; else say "FAIL  unknown step: $step"; failures=$((failures + 1)); fi
done
exit $((failures > 0))
