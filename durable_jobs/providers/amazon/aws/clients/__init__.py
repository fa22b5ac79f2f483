"""AWS job clients: the official AWS hooks' boto3 clients under the checkpoint protocol."""
