"""HTTP controllers and the wire Structs they speak; kept apart from the domain Structs."""
