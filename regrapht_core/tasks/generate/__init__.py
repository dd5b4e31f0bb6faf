"""The task generator: families of serial C++ tasks, a train/test split, the corpus on disk."""
