def out(): pass
