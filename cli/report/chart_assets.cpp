// The chart libraries and the page script, embedded into the binary with the assembler's
// .incbin (the paths come from charts.cmake), each followed by a NUL so it reads as a C string.
#include "cli/report/chart_assets.h"

#define RIDGELINE_ASSET(sym, path)                                                         \
  __asm__(".section .rodata\n.global " #sym "\n.type " #sym ", @object\n.balign 16\n" #sym \
          ":\n.incbin \"" path "\"\n.byte 0\n.previous\n")

RIDGELINE_ASSET(ridgeline_asset_vega, RIDGELINE_VEGA_JS);
RIDGELINE_ASSET(ridgeline_asset_vega_lite, RIDGELINE_VEGA_LITE_JS);
RIDGELINE_ASSET(ridgeline_asset_vega_embed, RIDGELINE_VEGA_EMBED_JS);
RIDGELINE_ASSET(ridgeline_asset_page_js, RIDGELINE_REPORT_JS);
RIDGELINE_ASSET(ridgeline_asset_page_css, RIDGELINE_REPORT_CSS);

extern "C" const char ridgeline_asset_vega[], ridgeline_asset_vega_lite[],
    ridgeline_asset_vega_embed[], ridgeline_asset_page_js[], ridgeline_asset_page_css[];

namespace ridgeline {

bool charts_built() {
  return true;
}

const ChartAssets& chart_assets() {
  static const ChartAssets assets{ridgeline_asset_vega, ridgeline_asset_vega_lite,
                                  ridgeline_asset_vega_embed, ridgeline_asset_page_js,
                                  ridgeline_asset_page_css};
  return assets;
}

}  // namespace ridgeline
