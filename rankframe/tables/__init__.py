"""The long table, from a file or any input to the engines' units.

io/ (files), inputs (any table -> pandas), join (a run with its judgments), rules (the table's rules, declared once),
schema (their pandas checks), units/ (codes, order) and prepare (the numpy engine's one preparation step).
"""
