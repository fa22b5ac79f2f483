"""Google Cloud job clients: the official Google hooks' calls under the checkpoint protocol."""
