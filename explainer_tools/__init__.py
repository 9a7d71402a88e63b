"""Build tools of the explainer: regenerate, embed, check, and the MkDocs hooks."""
