project = "geo"
extensions = ["sphinx.ext.autodoc"]
