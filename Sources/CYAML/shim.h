#ifndef NOTES_CYAML_SHIM_H
#define NOTES_CYAML_SHIM_H

#include <yaml.h>

#endif
