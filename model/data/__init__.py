"""The data layer: corpus readers, cleaning, leak-free splits, corpus specs and batching of pairs.

Imports the network layer only. ``corpus`` reads and cleans parallel files; ``ding``, ``gettext``
and ``helppages`` read the dictionary, localization catalogs and help pages that Debian ships;
``general`` the chat, e-mail, news and Wikipedia corpora of general German (docs/data.md);
``manuals`` the Debian Reference and GNOME's help, translated element by element;
``monolingual`` the one-language text that ``commands.backtranslate`` gives a machine-translated side;
``software`` knows format directives and accelerators; ``specs`` names a corpus on the command line
and registers the kinds of corpus (one entry per kind, with its reader).
"""

from model.data.corpus import (  # noqa: F401  (the package's public API)
    CorpusError, Pair, capped_split, clean_pairs, corpus_attribution, corpus_sha256, group_references,
    grouped_split, normalize, read_lines, read_pairs, read_references, reference_streams)
from model.data.specs import CORPUS_KINDS, CorpusSpec  # noqa: F401
