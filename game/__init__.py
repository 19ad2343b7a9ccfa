"""The Panda3D RTS demo: the only package that imports Panda3D (it reads components, owns no game state)."""
