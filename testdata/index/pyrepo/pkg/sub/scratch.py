def scratch(): pass
