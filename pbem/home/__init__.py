"""A home's own storage, outside any save: the archive of entry hashes seen per game,
contacts (players seen before and their key fingerprints), the game index, and the
caches of told entries and component digests. Each saves time or adds a check (forks,
branches, a link published once); none is part of a save. Every cache and shortcut, with
the rule that keeps it honest: docs/SHORTCUTS.md.

Modules: archive, contacts, gameindex, toldcache, stockdigest.
"""
