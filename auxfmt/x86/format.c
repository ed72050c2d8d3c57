// SPDX-License-Identifier: MIT
/*
 * An instruction as text in Intel syntax, as ptxed (XED) prints it:
 * lower case, hexadecimal with 0x, branch targets absolute, rip-relative
 * operands as [rip+0x...].
 */
#include <string.h>
#include <Zydis/Zydis.h>

#include "auxfmt/x86/x86_priv.h"
#include "qpt/qpt.h"

static int formatter_init(ZydisFormatter *f)
{
	static const struct {
		ZydisFormatterProperty prop;
		ZyanUPointer value;
	} props[] = {
		{ ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE },
		{ ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE },
		{ ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE },
		{ ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
		  ZYDIS_PADDING_DISABLED },
		{ ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED },
		{ ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED },
	};
	size_t i;

	if (ZYAN_FAILED(ZydisFormatterInit(f, ZYDIS_FORMATTER_STYLE_INTEL)))
		return -QPT_E_INVAL;
	for (i = 0; i < sizeof(props) / sizeof(props[0]); i++)
		if (ZYAN_FAILED(ZydisFormatterSetProperty(f, props[i].prop,
							  props[i].value)))
			return -QPT_E_INVAL;
	return 0;
}

int qx86_format(const struct qx86 *x, const uint8_t *p, size_t n, int bits,
		uint64_t ip, char *buf, size_t size)
{
	ZydisDecodedOperand o[ZYDIS_MAX_OPERAND_COUNT];
	int m = qx86_mode_index(bits), err;
	ZydisDecodedInstruction z;
	ZydisFormatter f;
	ZydisDecoder own;
	ZyanStatus s;

	if (size)
		buf[0] = '\0';
	if (m < 0)
		return -QPT_E_INVAL;
	if (!x && (err = qx86_init_full(&own, m)) < 0)
		return err;
	err = qx86_status(ZydisDecoderDecodeFull(x ? &x->full[m] : &own, p, n,
						 &z, o));
	if (err < 0)
		return err;
	err = formatter_init(&f);
	if (err < 0)
		return err;
	s = ZydisFormatterFormatInstruction(&f, &z, o, z.operand_count_visible,
					    buf, size, ip, NULL);
	if (ZYAN_FAILED(s)) {
		if (size)
			buf[0] = '\0';
		return -QPT_E_INVAL;
	}
	return (int)strlen(buf);
}
