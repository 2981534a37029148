"""The command-line tools, the top floor: each module is one command with a ``main(argv=None) -> int``,
run as ``python -m commands.NAME`` or as its console script (pyproject.toml's [project.scripts]).

    translate   German text or a file through the text pipeline, as the app translates
    evaluate    BLEU and chrF of a checkpoint on a test set
    info        what a checkpoint is and how it was made
    average     the average of checkpoints (fp16 with --half)
    deepen      new identity-start encoder layers
    lexicon     a checkpoint given the words of its training corpora
    mixture     the corpora train.py reads, written as files
    sample      the attributed sample of training pairs behind the app's Random button
    export_ct2  a checkpoint as a CTranslate2 model
    keys        the app's API key database

``cli`` is their shared plumbing (one-line errors, the model and search flags). They import the
library (app/, pipeline/, model/); nothing in the library imports them (.importlinter).
"""
