export declare const SCHEMA_FILE: string;
export declare const OUTPUT_FILE: string;
export declare function generateAccordFileTypes(): Promise<string>;
