"""Every ``tokendesk`` command: options parsed, the rooms called, the answer printed.

``cli.main`` is the root (``tokendesk``); each other module registers its commands on it when they
run. Commands wire the rooms together and may use any room but the dashboard; nothing imports a
command module but the root.
"""
