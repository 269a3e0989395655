"""ducktable.training: training the card classifier and the card locator (needs the `train` extra)."""
