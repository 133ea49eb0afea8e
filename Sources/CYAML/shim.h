// CYAML: libyaml's event parser, for the YAMLTree module only.
#ifndef CYAML_SHIM_H
#define CYAML_SHIM_H
#include <yaml.h>
#endif
