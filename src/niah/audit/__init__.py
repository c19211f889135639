"""`niah audit`: probes that try to score without doing the task, on what a model is sent."""
