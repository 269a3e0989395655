"""ducktable.sim: the synthetic table - rendered cards and tables, bot games filmed and replayed."""
