"""The OpenAPI document: shared response specs, descriptions, examples and the offline schema site."""
