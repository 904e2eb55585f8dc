// AMD Instinct accelerators, from AMD's data sheets.
#include "analysis/roofline/datasheet_rows.hpp"

namespace whyslow::datasheet {

std::vector<DatasheetRow> amd_rows() {
  // AMD Instinct MI300X data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf):
  // FP32 matrix 163.4 (vector 81.7), TF32 653.7, FP16/BF16 1,307.4, FP8 2,614.9, INT8 2,614.9
  // (dense), 5.3 TB/s, 304 CUs. The cache in front of HBM is the 256 MB Infinity Cache (the L2
  // is 4 MB per XCD): it is what a working set has to fit in. The fp32 roof is the matrix rate,
  // since fp32 GEMMs are the only fp32 work that approaches it.
  static const char* mi300x = "AMD Instinct MI300X data sheet (amd.com)";
  // AMD Instinct MI210 brochure (https://www.amd.com/system/files/documents/amd-instinct-mi210-brochure.pdf):
  // FP32 vector 22.6, FP32 matrix 45.3, FP16/BF16 181.0, INT8 181.0, 1.6 TB/s, 104 CUs (as the
  // MI210 trace in ../shared/traces/public reports numSms), 8 MB L2 ("AMD CDNA 2 Architecture"
  // whitepaper: 8 MB per GCD). CDNA 2 has neither tf32 nor fp8: 0. The fp32 roof is the matrix
  // rate, as for the MI300X.
  static const char* mi210 = "AMD Instinct MI210 brochure (amd.com) and CDNA 2 architecture whitepaper";
  // Left out: "AMD Instinct MI250X/MI250", the one name ROCm reports for a GCD of either part
  // (110 CUs on the MI250X, 104 on the MI250): no single row fits both.
  return {
      {{"AMD Instinct MI210"}, make("AMD Instinct MI210", 45.3, 0, 181.0, 0, 181.0, 1.6, 8 * MiB, 104, mi210)},
      // "VF": the virtual function a VM sees, the same chip.
      {{"AMD Instinct MI300X", "AMD Instinct MI300X VF"},
       make("AMD Instinct MI300X", 163.4, 653.7, 1307.4, 2614.9, 2614.9, 5.3, 256 * MB, 304, mi300x)},
  };
}

}  // namespace whyslow::datasheet
