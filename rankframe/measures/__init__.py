"""The declared measures, collected and read.

The registry (of metrics/, beyond/, intent/), the metric-name grammar, which way is better, evaluate's metric-list
arguments and the checks of data against the asked metrics.
"""
