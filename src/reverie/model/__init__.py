"""The pure core: items, commands, events, the reducer, projection and the query algebra. No I/O."""
