"""The chaos evening's parts (benchmarks/soak.py runs it, `make soak`): what a game is (draw.py),
how far it has come (watch.py), a person's seat (person.py), one game on real processes
(game.py) and its judge (judge.py)."""
