"""Engines turn a validated table and bound measures into per-query values; rankframe.stats.aggregate means them."""
