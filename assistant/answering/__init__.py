"""The online half: from a question to a cited answer, one module per stage.

In: a question, the conversation so far and an optional product or release pin. Out: an `AskResult` with the intent,
the product and release chosen and how, the rewritten queries, ranked sources, the knowledge verdict and the answer.
"""
