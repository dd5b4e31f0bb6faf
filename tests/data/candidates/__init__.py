"""The adversarial corpus: cheating and honest candidates for three small tasks."""
