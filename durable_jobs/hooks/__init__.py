"""One ``JobClient`` per vendor, each a thin layer over the official provider hook."""
