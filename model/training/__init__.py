"""The pieces of ``train.py``'s training loop (paper section 5), one module per concern:

    loss          label-smoothed cross-entropy
    optimizer     AdamW and the learning-rate schedule
    precision     the forward passes' precision (bfloat16 autocast)
    evaluation    dev loss and dev BLEU, on an even sample of the dev set
    corpus        the corpora read, cleaned and split; splits written as TSV
    metadata      the log lines and a checkpoint's metadata (hardware, versions, data)
    signals       SIGTERM and SIGINT: stop after the current step and save
    rng           the random state saved with a run and restored on --resume
    distributed   a torchrun job's ranks
    memory        the allocator kept from returning large buffers at every step
"""
