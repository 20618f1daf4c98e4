// SPDX-License-Identifier: MIT
#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its <unicode/*.h> types clash with Foundation's _FoundationICU on a clean
   build ("'UErrorCode' has different definitions in different modules"). We never touch the ICU fields. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlerror.h>

/// xmlFree is a global function-pointer variable, which Swift 6 treats as shared mutable state: call it from C.
static inline void CLibXML2_free(void *p) { xmlFree(p); }
#endif
