// The ControlProtocol module. See ../shared/DESIGN.md §2.
