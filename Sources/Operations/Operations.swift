// The Operations module. See ../shared/DESIGN.md §2.
