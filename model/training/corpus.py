"""The corpora a run trains on: read, cleaned, split into train, dev and test, and written as TSV."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model.data import CorpusError, CorpusSpec, capped_split, clean_pairs, corpus_sha256, read_pairs
from model.network.checkpoint import atomic_open


@dataclass
class Corpus:
    train: list[tuple[str, str]]
    dev: list[tuple[str, str]]
    test: list[tuple[str, str]]
    sha256: dict[str, str]  # file -> SHA-256 of what was trained on
    parts: list[dict[str, Any]] = field(default_factory=list)  # per --data: spec, kind, weight, train_pairs
    # per domain ("ui", "help", "ding"): (dev, test) held out of the corpora of that kind
    domains: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = field(default_factory=dict)
    # where the --data files came from, when they are a mixture written by commands.mixture (--data-sources)
    sources: list[dict[str, Any]] = field(default_factory=list)

    def weights(self) -> list[float]:
        """Each training pair's sampling weight, from the corpus it came from (see ``parts``)."""
        return [part["weight"] for part in self.parts for _ in range(part["train_pairs"])]

    def held_out(self) -> dict[str, dict[str, int]]:
        """How many dev and test pairs each domain holds out, as a checkpoint records it."""
        return {domain: {"dev_pairs": len(dev), "test_pairs": len(test)} for domain, (dev, test) in self.domains.items()}

    def split_parts(self, pairs: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
        """``pairs`` (parallel to ``train``) cut into one list per corpus."""
        assert len(pairs) == len(self.train)
        cuts, start = [], 0
        for part in self.parts:
            cuts.append(pairs[start:start + part["train_pairs"]])
            start += part["train_pairs"]
        return cuts


def read_sources(path: str | Path) -> list[dict[str, Any]]:
    """commands.mixture's sources.json: each corpus a mixture was written from, as given, with its SHA-256
    and training pairs (train.py's --data-sources keeps them in the checkpoint)."""
    shown = str(path)
    try:
        records = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"--data-sources not found: {shown!r}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CorpusError(f"cannot read --data-sources {shown!r}: {exc}") from None
    if not (isinstance(records, list) and records and all(
            isinstance(r, dict) and isinstance(r.get("corpus"), str) and isinstance(r.get("sha256"), str)
            for r in records)):
        raise CorpusError(f"--data-sources {shown!r} is not a sources.json of commands.mixture "
                          "(a list of records with 'corpus' and 'sha256')")
    return records


def load_corpus(args, out_dir: Path | None) -> Corpus:
    """Read and clean the corpora; split the first one (without --valid) and hold out a dev and a
    test split of each domain ("ui", "help", "ding"; ``CorpusSpec.domain``); rank 0 writes the
    splits it made.

    The first ``--data`` corpus gives the dev pairs that training evaluates on, and its test pairs.
    Every other corpus trains, without any pair that shares a sentence with any held-out split,
    so that no held-out sentence is trained on. Domain splits are written as
    ``DIR/dev.DOMAIN.tsv`` and ``DIR/test.DOMAIN.tsv`` (``--domain-split-size`` pairs each)."""
    specs = [CorpusSpec.parse(text) for text in args.data]
    pairs = clean_pairs(specs[0].read())
    sha = {spec.path: corpus_sha256(spec.path) for spec in specs}
    if args.valid:
        train, dev, test = pairs, clean_pairs(read_pairs(args.valid)), []
        sha[args.valid] = corpus_sha256(args.valid)
    else:
        train, dev, test = capped_split(pairs, dev_size=args.dev_size, test_size=args.test_size, seed=args.seed)
    size = getattr(args, "domain_split_size", 0)
    read = [(spec, clean_pairs(spec.read())) for spec in specs[1:]]
    domains: dict[str, tuple[list, list]] = {}
    for k, (spec, extra) in enumerate(read):
        if spec.domain and size and not args.valid:
            own = spec.own_held_out()
            if own is not None:  # the corpus's published dev and test, whole; its pairs sharing a side drop below
                domain_dev, domain_test = clean_pairs(own[0]), clean_pairs(own[1])
            else:
                extra, domain_dev, domain_test = capped_split(extra, dev_size=size, test_size=size, seed=args.seed)
                read[k] = (spec, extra)
            held = domains.setdefault(spec.domain, ([], []))
            held[0].extend(domain_dev)
            held[1].extend(domain_test)
    if out_dir is not None:
        splits = [("dev", dev), ("test", test)] if not args.valid else []
        for domain, (domain_dev, domain_test) in domains.items():
            splits += [(f"dev.{domain}", domain_dev), (f"test.{domain}", domain_test)]
        for name, split in splits:
            write_tsv(out_dir / f"{name}.tsv", split)
    parts = [{"corpus": str(specs[0]), "weight": specs[0].weight, "train_pairs": len(train)}]
    held_out = {side for pair in dev + test for side in pair}
    held_out |= {side for splits in domains.values() for split in splits for pair in split for side in pair}
    for spec, extra in read:
        extra = [pair for pair in extra if pair[0] not in held_out and pair[1] not in held_out]
        train = train + extra
        parts.append({"corpus": str(spec), "weight": spec.weight, "train_pairs": len(extra)})
    sources = read_sources(args.data_sources) if getattr(args, "data_sources", None) else []
    return Corpus(train, dev, test, sha, parts, domains, sources)


def write_tsv(path: Path, pairs: list[tuple[str, str]]) -> None:
    """The corpus's own layout (English<TAB>German), so every command can read it back; gzipped
    where the name ends in ``.gz``, without a name or time stamp in the header, so that the same
    pairs give the same bytes (``commands.mixture``)."""
    if Path(path).suffix == ".gz":
        with atomic_open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as z:
            z.write("".join(f"{en}\t{de}\n" for de, en in pairs).encode("utf-8"))
        return
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(f"{en}\t{de}\n" for de, en in pairs)
