#!/usr/bin/env bash
# Behaviour unchanged? `python -m commands.translate` of two checkouts on the same German lines, on
# both engines, compared byte for byte (a refactoring must give identical files). A checkout from
# before the commands had a package of their own runs `python -m model.translate`, the same command.
#
#   bench/same_outputs.sh BEFORE_CHECKOUT AFTER_CHECKOUT TSV [BEAM]
#
# TSV is a corpus in the Tatoeba layout (English<TAB>German), e.g. a run's test.tsv. Both checkouts
# translate with this script's Python (their own commands/, model/ and pipeline/ packages are
# imported: each runs from its own directory) and the release model of AFTER_CHECKOUT. Prints one
# line per engine ("identical" or the number of lines that differ) and exits 1 if any differ.
# KEEP=DIR keeps the four outputs there ({before,after}.{torch,ct2}.txt) for explaining differences.
set -euo pipefail
before=$(cd "$1" && pwd); after=$(cd "$2" && pwd); tsv=$3; beam=${4:-4}
python=${PYTHON:-python}
if [ -n "${KEEP:-}" ]; then work=$KEEP; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
cut -f2 "$tsv" > "$work/de.txt"
status=0
for engine in torch ct2; do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    command=commands.translate; [ -f "$dir/commands/translate.py" ] || command=model.translate
    (cd "$dir" && "$python" -m "$command" --checkpoint "$after/checkpoints/de-en.pt" --engine "$engine" \
       --beam "$beam" < "$work/de.txt" > "$work/$side.$engine.txt")
  done
  lines=$(wc -l < "$work/de.txt")
  if cmp -s "$work/before.$engine.txt" "$work/after.$engine.txt"; then
    echo "$engine: identical ($lines lines, beam $beam)"
  else
    differ=$(paste -d '\n' "$work/before.$engine.txt" "$work/after.$engine.txt" | paste - - | awk -F'\t' '$1 != $2' | wc -l)
    echo "$engine: $differ of $lines lines differ (beam $beam)"; status=1
  fi
done
exit $status
