export declare const SCHEMA_FILE: string;
export declare const OUTPUT_FILE: string;
export declare const VALIDATOR_FILE: string;
export declare const PLAN_SCHEMA_FILE: string;
export declare const PLAN_VALIDATOR_FILE: string;
export declare const AJV_OPTIONS: { allErrors: boolean; verbose: boolean; strictTypes: boolean };
export declare function generateAccordFileTypes(): Promise<string>;
export declare function generateAccordFileValidator(): string;
export declare function generatePlanValidator(): string;
