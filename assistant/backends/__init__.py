"""The models both halves call: the embedder, the chat-model seam and its Ollama and embedded implementations.

In: texts and chat messages. Out: unit vectors, token counts and streamed replies; nothing here knows the library.
"""
