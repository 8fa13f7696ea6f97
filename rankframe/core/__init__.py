"""The vocabulary every room speaks; it imports no other room of rankframe.

The errors, how a metric and a parameter are declared, the numeric rule, column names, progress.
"""
