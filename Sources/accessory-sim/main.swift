// accessory-sim: simulated serial accessories on pseudo-terminals. See AccessorySimCommand.
AccessorySimCommand.main()
