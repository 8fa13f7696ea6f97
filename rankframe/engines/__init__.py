"""Engines turn a validated table and bound measures into per-query values; :mod:`.aggregate` means them."""
