"""RealityBench §3.1's seventh solar environment, set indoors: the house's load centre
(electrical panel) on a garage/basement wall, where the array ties in.

Nothing is registered here: each environment module (`breaker_label`) registers itself.
"""
