"""Generated mutation testing of ``pyref`` (issue 14 item 4).

* :mod:`.generate` -- the mutants: operator-level AST mutations of pyref's numerical code,
  with stable ids ``module:function:operator:k``;
* :mod:`.pool` -- a fork-based process pool (one forked child per task, per-task timeouts);
* :mod:`.runner` -- the line-coverage map of the registered properties and the mutant runs;
* :mod:`.equivalent` -- the reviewed equivalent mutants, each with its reason.

The hand-written mutants stay in :mod:`crosscheck.mutants` (``plga mutate``);
``plga mutate --generated`` runs these.
"""
