def ignored(): pass
