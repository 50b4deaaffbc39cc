"""Reliability suite: crash safety, isolation, input fuzzing, concurrency, resources, backups.

A package (unlike the other test folders) so its module names cannot collide with theirs, and so
the spawned worker processes can import ``reliability.soak_workers`` by a stable name.
"""
