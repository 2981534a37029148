"""The search layer: greedy and beam search over a network, and the beam search's step recorder.

Imports the network layer only.
"""
