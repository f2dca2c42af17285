"""Properties for ``Formal/Data`` (finite sums, matrices): the identities pyref's own
linear algebra relies on, evaluated with the backend's arithmetic (numpy float64, or
object arrays of mpf at 50 digits).
"""
