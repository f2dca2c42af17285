"""Generated mutation testing of ``pyref`` (issue 14 item 4).

* :mod:`.scope` -- what is mutated and who scores it: the skipped modules, and the test-scored
  functions (:data:`~.scope.TEST_SCORED`: function id -> the pytest node ids that score it);
* :mod:`.generate` -- the mutants: operator-level AST mutations of pyref's numerical code,
  with stable ids ``module:function:operator:k``;
* :mod:`.pool` -- a fork-based process pool (one forked child per task, per-task timeouts);
* :mod:`.snapshot` -- the mutated pyref copy imported in place of pyref (in a child);
* :mod:`.testrun` -- a test-scored mutant's run: ``pytest.main`` on its node ids in the child;
* :mod:`.runner` -- the line-coverage map of the registered properties (and of the tests of
  the test-scored functions) and the mutant runs;
* :mod:`.equivalent` -- the reviewed equivalent mutants, each with its reason.

The hand-written mutants stay in :mod:`crosscheck.mutants` (``plga mutate``);
``plga mutate --generated`` runs these.
"""
