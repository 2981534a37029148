#!/usr/bin/env bash
# Model v4's training mixture (docs/data.md), written by commands.mixture for a GPU machine.
#
#   V4DATA=DIR TATOEBA=deu-eng.zip bash bench/v4_mixture.sh [OUT]     # OUT: .gpu/mix4b by default
#
# V4DATA holds what bench/v4_data.py wrote (--debian --catalogs) and the back-translated web text
# ($V4DATA/bt/ewt.tsv.gz, commands.backtranslate); TATOEBA is the corpus every release trained on
# first (its dev and test split are the releases'). The Ding dictionary, the Debian Reference and
# GNOME's help come from their Debian packages (trans-de-en, debian-reference-de/-en,
# gnome-user-docs). Fourteen corpora at v4a's weights plus the manuals, MLQE-PE's post-edited
# Wikipedia sentences and the back-translation; the back-translated debates ($V4DATA/bt/europarl.tsv.gz)
# where they have been made (docs/data.md: hours on a CPU). Under the only licence that covers
# them all, GPL-3.0-or-later. Then learn the vocabulary here:
#   mapfile -t MIX < OUT/train-args.txt
#   python train.py "${MIX[@]}" --preset medium --encoder-layers 10 --decoder-layers 3 --out .gpu/vocab4b --vocab-only
set -euo pipefail
cd "$(dirname "$0")/.."
: "${V4DATA:?set V4DATA to the folder bench/v4_data.py wrote}" "${TATOEBA:?set TATOEBA to deu-eng.zip}"
OUT=${1:-.gpu/mix4b}
DEB=$V4DATA/debian/root
PYTHON=${PYTHON:-python}
DEBATES=()
if [ -f "$V4DATA/bt/europarl.tsv.gz" ]; then
  DEBATES=(--data "$V4DATA/bt/europarl.tsv.gz@0.5"
           --data-attribution "European Parliament debates (EuroParlMin, github.com/ufal/europarlmin); German back-translated by checkpoints/en-de.pt")
else
  echo "v4_mixture: no $V4DATA/bt/europarl.tsv.gz: the mixture without the back-translated debates" >&2
fi
"$PYTHON" -m commands.mixture --out "$OUT" \
  --data "$TATOEBA@2" \
  --data ding-sentences:/usr/share/trans/de-en@3 \
  --data ding-words:/usr/share/trans/de-en@0.3 \
  --data "gettext:$V4DATA/catalogs@2" \
  --data "gettext:$DEB/usr/lib/libreoffice/program/resource/de/LC_MESSAGES@2" \
  --data "mozilla:$DEB/usr/lib@2" \
  --data "libreoffice-help:$DEB/usr/share/libreoffice/help" \
  --data "bconstrast:$V4DATA/bconstrast@4" \
  --data "support:$V4DATA/mt4all/customer_support@5" \
  --data "ud-pud:$V4DATA/ud-pud/de_pud-ud-test.conllu@5" \
  --data "xquad:$V4DATA/xquad@5" \
  --data debian-reference:/usr/share/debian-reference@2 \
  --data mallard:/usr/share/help@2 \
  --data "$V4DATA/bt/ewt.tsv.gz@2" \
  --data "$V4DATA/mlqe/mlqe-train@5" \
  "${DEBATES[@]}" \
  --data-attribution "Tatoeba (tatoeba.org), CC BY 2.0 FR" \
  --data-attribution "Ding de-en dictionary (Frank Richter), GPL-2.0-or-later" \
  --data-attribution "Debian gettext catalogs (/usr/share/locale/de) whose packages name no GPL-2.0-only, GPL-1.0-only or unstated licence" \
  --data-attribution "LibreOffice UI and help (libreoffice-l10n-de, libreoffice-help-de/en-us), MPL-2.0" \
  --data-attribution "Firefox ESR and Thunderbird language packs (firefox-esr-l10n-de, thunderbird-l10n-de), MPL-2.0" \
  --data-attribution "BConTrasT (Unbabel, github.com/Unbabel/BConTrasT), CC BY-SA 4.0" \
  --data-attribution "MT4All customer support test set (ELRC, via github.com/Helsinki-NLP/OPUS-MT-testsets), CC0" \
  --data-attribution "UD German PUD (Universal Dependencies, UD_German-PUD), CC BY-SA 3.0" \
  --data-attribution "XQuAD (Artetxe et al. 2020, github.com/google-deepmind/xquad), CC BY-SA 4.0" \
  --data-attribution "Debian Reference (Osamu Aoki et al., debian-reference-de/-en), GPL-2.0-or-later" \
  --data-attribution "GNOME help (GNOME Documentation Project, gnome-user-docs), CC BY-SA 3.0" \
  --data-attribution "UD English EWT (Universal Dependencies, UD_English-EWT), CC BY-SA 4.0; German back-translated by checkpoints/en-de.pt" \
  --data-attribution "MLQE-PE post-editing data (Fomicheva et al. 2022, github.com/sheffieldnlp/mlqe-pe), CC0" \
  --license GPL-3.0-or-later
