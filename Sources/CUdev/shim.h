// CUdev: libudev (monitor, enumeration, device properties) for the Hotplug module only.
#ifndef CUDEV_SHIM_H
#define CUDEV_SHIM_H
#include <libudev.h>
#endif
