"""The model providers' clients against loopback servers that speak each wire format."""
